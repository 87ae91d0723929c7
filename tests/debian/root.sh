#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes, or reuses, a cached minbase Debian root with packages installed,
# and prints its path on stdout (progress goes to stderr).
#   tests/debian/root.sh SUITE NAME [PACKAGE...]
# SUITE is bookworm or trixie; NAME says what the root is for (it names the
# folder). Run commands in the root with tests/debian/in-root.sh.
#
# Cache: ${WALDBOOST_ROOT_CACHE:-/var/cache/waldboost-gst/roots} (the
# machine keeps /var/cache between runs; CI's XDG_CACHE_HOME may be empty).
#   NAME-SUITE-KEY/  a root; KEY is a hash of the suite, the sorted package
#                    list and ROOT_FORMAT below, so a changed list makes a
#                    new root (the old one stays until removed by hand).
#   debs/SUITE/      the .debs debootstrap and apt downloaded, bound into
#                    the root's /var/cache/apt/archives while installing, so
#                    a remade root downloads nothing that is there already.
# A root is built in a temporary folder and renamed when complete: an
# interrupted run leaves at most a .tmp-* folder, removed by the next run,
# never a half root under the final name. A lock per root keeps two runs
# from building the same root at once.
#
# Mirror: WALDBOOST_DEBIAN_MIRROR, or the first Debian archive URI (not the
# security archive) in /etc/apt/sources.list.d/*.sources or
# /etc/apt/sources.list. Only the SUITE's main component is used, without
# SUITE-updates or security updates: a root changes only when its package
# list changes. A reused root needs no network. When the root must be
# made and the mirror cannot be reached, the script fails (exit 1) with a
# message that names the mirror.
# Needs root (debootstrap, chroot), debootstrap (which brings wget),
# flock and unshare.
set -eu

# Raise to remake every root after a change in how roots are made.
ROOT_FORMAT=1

[ $# -ge 2 ] || { echo "usage: $0 SUITE NAME [PACKAGE...]" >&2; exit 2; }
suite=$1
name=$2
shift 2
case $suite in
  bookworm|trixie) ;;
  *) echo "root.sh: suite must be bookworm or trixie, not '$suite'" >&2; exit 2 ;;
esac
case $name in
  ''|*[!A-Za-z0-9_.-]*) echo "root.sh: NAME may hold letters, digits, '.', '_' and '-' only" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "root.sh: must run as root (debootstrap, chroot)" >&2; exit 2; }
for tool in debootstrap wget flock unshare; do
  command -v $tool >/dev/null 2>&1 || { echo "root.sh: $tool is missing (build-aux/install-deps.sh --tests installs it)" >&2; exit 2; }
done

here=$(cd "$(dirname "$0")" && pwd -P)
cache=${WALDBOOST_ROOT_CACHE:-/var/cache/waldboost-gst/roots}
mkdir -p "$cache/debs/$suite"
cache=$(cd "$cache" && pwd -P)

packages=$(printf '%s\n' "$@" | sed '/^$/d' | LC_ALL=C sort -u | tr '\n' ' ')
key=$(printf 'format %s\nsuite %s\npackages %s\n' "$ROOT_FORMAT" "$suite" "$packages" | sha256sum | cut -c1-16)
final=$cache/$name-$suite-$key
if [ -x "$final/bin/sh" ]; then
  echo "root.sh: reusing $final" >&2
  echo "$final"
  exit 0
fi

exec 9>"$cache/.lock-$name-$suite-$key"
flock 9
if [ -x "$final/bin/sh" ]; then  # made by another run while we waited
  echo "$final"
  exit 0
fi

# The mirror: the first URI of a deb source that is not the security
# archive, from deb822 files first, then the one-line format.
mirror=${WALDBOOST_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$( { cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n'
              cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
                sed -n 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\).*/\2/p'
            } | grep -v -e security -e '^$' | head -n 1 || true)
fi
[ -n "$mirror" ] || { echo "root.sh: no Debian mirror found in /etc/apt/sources.list{,.d} (set WALDBOOST_DEBIAN_MIRROR)" >&2; exit 1; }
mirror=${mirror%/}
echo "root.sh: making $final from $mirror ($suite, minbase${packages:+, with ${packages% }})" >&2
if ! wget -q -T 60 -t 2 -O /dev/null "$mirror/dists/$suite/InRelease"; then
  echo "root.sh: FAILED: cannot reach the Debian mirror $mirror ($mirror/dists/$suite/InRelease); the $suite root cannot be made" >&2
  exit 1
fi

rm -rf "$cache/.tmp-$name-$suite-$key".*
tmp=$(mktemp -d "$cache/.tmp-$name-$suite-$key.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

debootstrap --variant=minbase --cache-dir="$cache/debs/$suite" "$suite" "$tmp" "$mirror" >&2 || {
  echo "root.sh: FAILED: debootstrap $suite from $mirror (log: the lines above, $tmp/debootstrap/debootstrap.log)" >&2
  cat "$tmp/debootstrap/debootstrap.log" >&2 2>/dev/null || true
  exit 1
}
# debootstrap's copies of the .debs (they are in the cache).
rm -f "$tmp"/var/cache/apt/archives/*.deb
# No daemons start in the root while packages install.
printf '#!/bin/sh\nexit 101\n' > "$tmp/usr/sbin/policy-rc.d"
chmod 755 "$tmp/usr/sbin/policy-rc.d"

if [ -n "$packages" ]; then
  # shellcheck disable=SC2086
  "$here/in-root.sh" "$tmp" --bind "$cache/debs/$suite:/var/cache/apt/archives" -- \
    env DEBIAN_FRONTEND=noninteractive sh -euc '
      # The cache folder belongs to the host: apt downloads as root there.
      # dpkg need not sync each file: a root is trusted only once renamed.
      apt-get update -q
      apt-get install -y -q --no-install-recommends -o APT::Sandbox::User=root \
        -o Dpkg::Options::=--force-unsafe-io "$@"' install $packages >&2 || {
    echo "root.sh: FAILED: installing the packages in the $suite root (from $mirror)" >&2
    exit 1
  }
fi
printf '%s\n' "$suite" "$packages" > "$tmp/.waldboost-root"
mv -T "$tmp" "$final"
trap - EXIT
echo "root.sh: made $final" >&2
echo "$final"
