#!/usr/bin/env bash
# Slice, cat and pad on the vectorized axis (issue 6, RoPE; branch rope), for
# a GPU machine:
#   1. the GPU tests against the CPU reference: GpuCatPadTest (RoPE with
#      aligned halves, halves of 60/68, head 100, a misaligned q, pads on the
#      innermost axis, cats of rows and of columns) and the pointwise suite;
#   2. the suite's RoPE and the bundled examples with slice/pad/cat, run with
#      `--backend cuda --check`;
#   3. the registers and global loads of the RoPE kernel (cuobjdump, if
#      there), `fuserlab-cli bench`, then the comparison with torch.compile
#      if torch is there.
# Usage: tests/gpu/run_vector_cat_checks.sh [BUILD_DIR]   (default build-gpu)
# Needs LD_LIBRARY_PATH to reach libnvrtc (e.g. /usr/local/cuda/lib64).
set -u -o pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$here/build-gpu}"
tests="$build/tests/gpu/fuserlab_gpu_tests"
cli="$build/app/cli/fuserlab-cli"
status=0
files="tests/perf/suite/rope_4x32x2048x128.py resources/examples/rope.py
       resources/examples/pad_cat.py resources/examples/meta_op_chain.py"

echo "== 1. GPU tests"
"$tests" --gtest_filter='GpuCatPadTest.*:GpuPointwiseTest.*' || status=1

echo "== 2. checked against the CPU reference"
for f in $files; do
  echo "-- $f"
  "$cli" run "$here/$f" --backend cuda --check | grep -E '^check|error' || status=1
done

echo "== 3. kernel and timings"
out="$(mktemp -d)"
for f in $files; do
  echo "-- $f"
  name="$(basename "$f" .py)"
  "$cli" compile "$here/$f" --out "$out/$name" | grep -E '^kernel|ptxas'
  if command -v cuobjdump >/dev/null; then
    for cubin in "$out/$name"/*.cubin; do
      echo "   $(basename "$cubin"): $(cuobjdump -sass "$cubin" | grep -oE '(LDG|STG)[.A-Z0-9]*' |
            sort | uniq -c | tr -s ' \n' ' ')"
    done
  fi
  "$cli" bench "$here/$f" || status=1
done
rm -rf "$out"
if python3 -c 'import torch' 2>/dev/null; then
  python3 "$here/tests/perf/compare_torch.py" --suite --cli "$cli" rope_4x32x2048x128 || status=1
fi
exit $status
