#!/usr/bin/env bash
# Runs every bundled example on the GPU with the CPU reference check:
#   fuserlab-cli run X --backend cuda --check
# and prints one line per example and a summary line
#   "N passed, M failed, K unavailable"
# (unavailable: a segment's kernel or library call does not exist yet, exit 2
# with "unavailable on the cuda backend"). Exit status 1 if any failed.
#
# Usage: tests/gpu/run_all_examples.sh [FUSERLAB_CLI] [LOG_DIR] [SCRIPT_DIR]
#   FUSERLAB_CLI defaults to $FUSERLAB_CLI, else build-gpu/app/cli/fuserlab-cli
#   LOG_DIR (optional) receives each example's full output as NAME.log
#   SCRIPT_DIR (optional) runs its *.py instead of resources/examples, e.g.
#   tests/frontend/corpus (the reader's corpus of real-style scripts)
set -u
here="$(cd "$(dirname "$0")/../.." && pwd)"
cli="${1:-${FUSERLAB_CLI:-$here/build-gpu/app/cli/fuserlab-cli}}"
logdir="${2:-}"
scripts="${3:-$here/resources/examples}"
[ -x "$cli" ] || { echo "no fuserlab-cli at $cli" >&2; exit 2; }
[ -n "$logdir" ] && mkdir -p "$logdir"

passed=0 failed=0 unavailable=0
failures=()
for example in "$scripts"/*.py; do
  name="$(basename "$example" .py)"
  output="$("$cli" run "$example" --backend cuda --check 2>&1)"
  status=$?
  [ -n "$logdir" ] && printf '%s\n' "$output" > "$logdir/$name.log"
  if [ $status -eq 0 ]; then
    passed=$((passed + 1))
    detail="$(printf '%s\n' "$output" | grep -m1 '^cuda run on' | sed 's/^cuda run on [^:]*: //')"
    printf 'PASS         %-32s %s\n' "$name" "$detail"
  elif [ $status -eq 2 ] && printf '%s' "$output" | grep -q 'unavailable on the cuda backend'; then
    unavailable=$((unavailable + 1))
    reason="$(printf '%s\n' "$output" | grep -m1 'unavailable on the cuda backend' | sed 's/.*unavailable on the cuda backend: //')"
    printf 'UNAVAILABLE  %-32s %s\n' "$name" "$reason"
  else
    failed=$((failed + 1))
    failures+=("$name")
    printf 'FAIL (%d)     %-32s\n' "$status" "$name"
    printf '%s\n' "$output" | grep -E 'FAILED|error|Error' | head -5 | sed 's/^/    /'
  fi
done
echo "$passed passed, $failed failed, $unavailable unavailable"
[ $failed -eq 0 ]
