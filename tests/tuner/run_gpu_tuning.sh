#!/usr/bin/env bash
# Tunes the normalization and pointwise examples on this machine's GPU and
# reports, per fusion, the speedup of the tuned params over the heuristic's
# and the variants measured per minute. Logs and JSON go to $OUT (default
# ./tune_out). Run from the repository root after building fuserlab-cli and
# fuserlab_tuner_tests:
#   OUT=/tmp/out tests/tuner/run_gpu_tuning.sh [build-dir] [strategy] [budget]
set -u
BUILD=${1:-build}
STRATEGY=${2:-coordinate}
BUDGET=${3:-0}
OUT=${OUT:-tune_out}
CLI=$BUILD/app/cli/fuserlab-cli
mkdir -p "$OUT"
DB=$OUT/tuned.db
rm -f "$DB" "$DB-wal" "$DB-shm"

echo "== GPU tests of the tuner" | tee "$OUT/summary.txt"
"$BUILD/tests/tuner/fuserlab_tuner_tests" > "$OUT/tuner_tests.log" 2>&1
echo "fuserlab_tuner_tests exit $? ($(grep -c '^\[       OK' "$OUT/tuner_tests.log") ok, $(grep -c '^\[  FAILED' "$OUT/tuner_tests.log") failed lines, $(grep -c '^\[  SKIPPED' "$OUT/tuner_tests.log") skipped)" | tee -a "$OUT/summary.txt"

echo "== sweeps ($STRATEGY, budget $BUDGET)" | tee -a "$OUT/summary.txt"
# index_select_gather: two kernels, the first tunable only since the
# CuptiTimer kept every kernel of a graph launch (session 27).
for example in layer_norm rms_norm softmax seed001_nanogpt_layer_norm silu_mul gelu_tanh pointwise_cast_chain index_select_gather; do
  file=resources/examples/$example.py
  [ -f "$file" ] || continue
  start=$(date +%s)
  "$CLI" tune "$file" --db "$DB" --strategy "$STRATEGY" --budget "$BUDGET" \
      --json "$OUT/$example.json" > "$OUT/$example.log" 2>&1
  rc=$?
  echo "$example: exit $rc in $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt"
  python3 - "$OUT/$example.json" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
try:
    items = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no JSON:", e); sys.exit()
for it in items:
    d, c = it.get("default_median_ns"), it.get("chosen_median_ns")
    per_min = 60 * it.get("measured", 0) / it["seconds"] if it.get("seconds") else 0
    print("  segment %s at %s: default %s ns, tuned %s ns, speedup %.3fx, %d variants "
          "(%d measured, %d failed), %.1f measured/min, %d worker(s)%s" % (
          it["segment"], it["sizes"], d and round(d), c and round(c),
          it.get("speedup", 0), it.get("variants", 0), it.get("measured", 0),
          it.get("failed", 0), per_min, it.get("workers", 0),
          "" if "error" not in it else " ERROR " + it["error"]))
PY
  "$CLI" inspect "$file" --db "$DB" --device cuda:0 > "$OUT/$example.inspect.txt" 2>&1
  echo "  inspect --db: $(grep -o 'params ([a-z_]*' "$OUT/$example.inspect.txt" | sort | uniq -c | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
done
"$CLI" db verify --db "$DB" > "$OUT/db_verify.txt" 2>&1
echo "db verify exit $?" | tee -a "$OUT/summary.txt"
