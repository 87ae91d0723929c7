# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Shared by the tools' shell tests (sourced): the test data folder, a work
# folder removed at exit, and a check of a command's exit status and message.

# Sets $data to WALDBOOST_TEST_DATA (default build/testdata), absolute;
# exits 77 (skipped) when one of FILES is missing there, or 1 when
# WALDBOOST_REQUIRE_TEST_DATA=1.
require_test_data() {  # FILES...
  data=${WALDBOOST_TEST_DATA:-build/testdata}
  [ -d "$data" ] && data=$(cd "$data" && pwd)
  for f in "$@"; do
    if [ ! -s "$data/$f" ]; then
      [ "${WALDBOOST_REQUIRE_TEST_DATA:-0}" = 1 ] && { echo "missing $data/$f"; exit 1; }
      echo "SKIP: missing $data/$f (tests/fetch-test-data.sh)"; exit 77
    fi
  done
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# expect STATUS TEXT COMMAND...: the exit status and a line of stderr.
expect() {
  want=$1 text=$2
  shift 2
  status=0
  "$@" > "$work/out" 2> "$work/err" || status=$?
  if [ "$status" != "$want" ] || ! grep -q -- "$text" "$work/err"; then
    echo "FAILED: $* gave status $status (want $want), stderr:"; cat "$work/err"
    echo "(expected to find: $text)"
    exit 1
  fi
}
