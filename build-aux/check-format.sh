#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Checks that the C and C++ files a change touches are formatted as
# .clang-format says (clang-format 14, Debian package clang-format).
#   build-aux/check-format.sh [BASE]     check; exit 1 listing the files that differ
#   build-aux/check-format.sh --fix [BASE]   format those files in place
# The files checked are those changed since BASE, committed or not. BASE
# defaults to the last commit that changed .clang-format: the tree was
# formatted in that commit, so every file touched since must stay formatted.
# kernels/*.cl are OpenCL C and keep their own layout.
set -eu
cd "$(dirname "$0")/.."
fix=no
if [ "${1:-}" = "--fix" ]; then
  fix=yes
  shift
fi
formatter=${CLANG_FORMAT:-clang-format}
if ! command -v "$formatter" >/dev/null 2>&1; then
  echo "check-format: $formatter not found (Debian package clang-format)" >&2
  exit 2
fi
base=${1:-$(git log -1 --format=%H -- .clang-format)}
if [ -z "$base" ]; then
  echo "check-format: no commit has .clang-format yet; give a BASE" >&2
  exit 2
fi
files=$({ git diff --name-only --diff-filter=d "$base" -- '*.c' '*.cpp' '*.h';
          git ls-files --others --exclude-standard -- '*.c' '*.cpp' '*.h'; } | sort -u)
status=0
for f in $files; do
  if [ "$fix" = yes ]; then
    "$formatter" -i "$f"
  elif ! "$formatter" --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "check-format: $f is not formatted (build-aux/check-format.sh --fix)" >&2
    status=1
  fi
done
[ "$fix" = yes ] || echo "check-format: $(echo "$files" | grep -c . || true) changed C/C++ files since ${base%"${base#???????}"} checked"
exit $status
