#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs a command as root inside a Debian root made by tests/debian/root.sh.
#   tests/debian/in-root.sh ROOT [--scratch] [--bind HOST:INSIDE]... -- COMMAND...
#
# The command runs in a private mount namespace (unshare --mount --fork
# --kill-child): /proc, /dev, /sys, the host's /etc/resolv.conf and each
# --bind HOST:INSIDE (HOST a folder or a file, INSIDE an absolute path in
# the root) are mounted there only, so they vanish when the command ends,
# even when it is killed, and nothing is left mounted on the host.
# --scratch: the root is the lower layer of an overlay whose upper layer is a
# temporary folder removed at the end, so the command cannot change the
# cached root (what tests and package installs should use); without it,
# changes stay in ROOT (what root.sh uses to install the packages).
# The environment is reset to PATH, HOME, LANG=C.UTF-8 and TERM; pass other
# variables with `env NAME=VALUE COMMAND...`. The exit status is COMMAND's.
set -eu

usage() { echo "usage: $0 ROOT [--scratch] [--bind HOST:INSIDE]... -- COMMAND..." >&2; exit 2; }
[ $# -ge 1 ] || usage
root=$1
shift
if [ ! -d "$root/etc" ] || [ ! -x "$root/bin/sh" ]; then echo "in-root: $root is not a Debian root" >&2; exit 2; fi
[ "$(id -u)" -eq 0 ] || { echo "in-root: must run as root (mount namespaces, chroot)" >&2; exit 2; }
root=$(cd "$root" && pwd -P)

scratch=""
binds=""
while [ $# -gt 0 ]; do
  case $1 in
    --scratch) scratch=1 ;;
    --bind)
      [ $# -ge 2 ] || usage
      case $2 in
        *:/*) ;;
        *) echo "in-root: --bind wants HOST:INSIDE with INSIDE absolute, not '$2'" >&2; exit 2 ;;
      esac
      host=${2%%:*}
      [ -e "$host" ] || { echo "in-root: --bind: $host does not exist" >&2; exit 2; }
      # One a line (a path with a newline would split: none here).
      binds="$binds$(cd "$(dirname "$host")" && pwd -P)/$(basename "$host"):${2#*:}
"
      shift ;;
    --) shift; break ;;
    *) usage ;;
  esac
  shift
done
[ $# -ge 1 ] || usage

work=""
if [ -n "$scratch" ]; then
  # Next to the cache, on the same disk as the root (not a tmpfs /tmp).
  work=$(mktemp -d "$(dirname "$root")/.scratch.XXXXXX")
  mkdir "$work/upper" "$work/work" "$work/merged"
  trap 'rm -rf "$work"' EXIT
  trap 'exit 130' INT TERM
fi

# The inner script gets its settings through the environment, the command
# as its arguments.
rc=0
# shellcheck disable=SC2016
WB_ROOT=$root WB_WORK=$work WB_BINDS=$binds unshare --mount --propagation private --fork --kill-child -- sh -eu -c '
  target=$WB_ROOT
  if [ -n "$WB_WORK" ]; then
    mount -t overlay overlay -o "lowerdir=$WB_ROOT,upperdir=$WB_WORK/upper,workdir=$WB_WORK/work" "$WB_WORK/merged"
    target=$WB_WORK/merged
  fi
  mount -t proc proc "$target/proc"
  mount --rbind /dev "$target/dev"
  mount --rbind /sys "$target/sys"
  # A root made by debootstrap has a regular file; a link would lead the
  # mount outside the root.
  [ -L "$target/etc/resolv.conf" ] && rm -f "$target/etc/resolv.conf"
  [ -e "$target/etc/resolv.conf" ] || : > "$target/etc/resolv.conf"
  mount --bind /etc/resolv.conf "$target/etc/resolv.conf"
  printf "%s" "$WB_BINDS" | while IFS= read -r bind; do
    [ -n "$bind" ] || continue
    host=${bind%%:*}
    inside=$target${bind#*:}
    if [ -d "$host" ]; then mkdir -p "$inside"; else mkdir -p "$(dirname "$inside")"; [ -e "$inside" ] || : > "$inside"; fi
    mount --bind "$host" "$inside"
  done
  exec chroot "$target" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" "$@"
' in-root "$@" || rc=$?
exit $rc
