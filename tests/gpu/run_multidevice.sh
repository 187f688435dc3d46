#!/usr/bin/env bash
# Runs every bundled multi-device example on N GPUs (one process per GPU,
# NCCL) with the check against the unsharded CPU reference:
#   fuserlab-cli run X --ranks N --backend cuda --check
# one line per example, then "P passed, F failed". Needs N GPUs; exit 1 if
# any failed. The same examples run in CI on CPU ranks (threads):
# fuserlab_multidevice_tests, MultiDeviceRunTest.
#
# Usage: tests/gpu/run_multidevice.sh FUSERLAB_CLI [RANKS (default 2)] [LOG_DIR]
set -u
here="$(cd "$(dirname "$0")/../.." && pwd)"
cli="${1:?usage: run_multidevice.sh FUSERLAB_CLI [RANKS] [LOG_DIR]}"
ranks="${2:-2}"
logdir="${3:-}"
[ -n "$logdir" ] && mkdir -p "$logdir"
passed=0 failed=0
for example in "$here"/resources/examples/multidevice/*.py; do
  name="$(basename "$example" .py)"
  output="$("$cli" run "$example" --ranks "$ranks" --backend cuda --check 2>&1)"
  status=$?
  [ -n "$logdir" ] && printf '%s\n' "$output" > "$logdir/$name.log"
  line="$(printf '%s\n' "$output" | grep -m1 -E '^check |error' )"
  if [ $status -eq 0 ]; then
    passed=$((passed + 1)); printf 'PASS  %-26s %s\n' "$name" "$line"
  else
    failed=$((failed + 1)); printf 'FAIL  %-26s (exit %d) %s\n' "$name" "$status" "$line"
    printf '%s\n' "$output" | tail -15 | sed 's/^/      /'
  fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
