#!/usr/bin/env bash
# The generated-code performance changes of issue 6 (branch perf5), for a GPU
# machine:
#   1. the GPU tests that check their numerics against the CPU reference:
#      var_mean on mean-100 std-1 inputs (chunked Welford), bias+GELU on
#      inputs in [-40, 40) (tanh.approx.f32 with a bf16 output; tanhf with a
#      float one), the reduction and pointwise suites (bf16 rounding by
#      cvt.rn.bf16.f32, outer reductions with the new grid split);
#   2. the suite cases they change, run with `--backend cuda --check`;
#   3. `fuserlab-cli bench` of the same cases (median, p20, p80), then the
#      full comparison with torch.compile if torch is there.
# Usage: tests/gpu/run_codegen_perf_checks.sh [BUILD_DIR]   (default build-gpu)
# Needs LD_LIBRARY_PATH to reach libnvrtc (e.g. /usr/local/cuda/lib64).
set -u -o pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$here/build-gpu}"
tests="$build/tests/gpu/fuserlab_gpu_tests"
cli="$build/app/cli/fuserlab-cli"
status=0
cases="var_mean_8192x4096 col_sum_8192x4096 bias_gelu_8192x4096 rope_4x32x2048x128
       layernorm_fwd_8192x4096 softmax_4096x16384 row_sum_8192x4096 cast_chain_8192x4096
       silu_mul_8192x11008 transpose_add_8192x4096"

echo "== 1. GPU tests"
"$tests" --gtest_filter='GpuReductionTest.*:GpuPointwiseTest.*' || status=1

echo "== 2. suite cases, checked against the CPU reference"
for c in $cases; do
  echo "-- $c"
  "$cli" run "$here/tests/perf/suite/$c.py" --backend cuda --check | grep -E '^check|error' || status=1
done

echo "== 3. timings"
for c in $cases; do
  echo "-- $c"
  "$cli" compile "$here/tests/perf/suite/$c.py" | grep -E '^kernel|ptxas'
  "$cli" bench "$here/tests/perf/suite/$c.py" || status=1
done
if python3 -c 'import torch' 2>/dev/null; then
  python3 "$here/tests/perf/compare_torch.py" --suite --cli "$cli" $cases || status=1
fi
exit $status
