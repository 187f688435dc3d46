#!/usr/bin/env bash
# Runs `fuserlab-cli run SCRIPT` (the CPU reference) on every script of a
# folder that split_tests.py wrote, 20 s each, and prints one line per
# script (exit status, name, the first line of the error) and a summary.
#   tests/frontend/nvfuser_suite/measure_reader.sh CLI DIR [JOBS] > results.tsv
set -u
cli=$1 dir=$2 jobs=${3:-2}
ls "$dir"/*.py | xargs -P "$jobs" -I{} sh -c '
  out=$(timeout 20 "$0" run "{}" 2>&1); status=$?
  why=$(printf "%s\n" "$out" | grep -m1 -iE "error|unavailable|refus|not supported|timed out" | cut -c1-220)
  [ $status -eq 124 ] && why="timeout after 20 s"
  printf "%s\t%s\t%s\n" "$status" "$(basename {} .py)" "$why"' "$cli" | sort -k2
