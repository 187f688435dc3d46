#!/usr/bin/env bash
# The matmul / kernel-free-segment checks of issue 5, for a GPU machine:
#   1. the GPU tests (GoogleTest filters below), compared with the CPU
#      reference, with launch counts asserted;
#   2. the examples that exercise them through `fuserlab-cli run --backend
#      cuda --check`, printing each run's launch line (launch count, cuBLASLt
#      calls, the chosen algorithm);
#   3. that no binary needs libcuda.so to start (cuBLASLt is linked directly).
# Usage: tests/gpu/run_matmul_checks.sh [BUILD_DIR]   (default build-gpu)
# Needs LD_LIBRARY_PATH to reach libnvrtc and libcublasLt, e.g.
#   export LD_LIBRARY_PATH=/usr/local/cuda/lib64
set -u
here="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$here/build-gpu}"
tests="$build/tests/gpu/fuserlab_gpu_tests"
cli="$build/app/cli/fuserlab-cli"
status=0

echo "== 1. GPU tests"
filter='GpuMatmulTest.*:GpuExecutorTest.*'
"$tests" --gtest_filter="$filter" || status=1
# The same suites one by one, for a readable log:
#   GpuMatmulTest.SingleMmaOp                          1 launch, epilogue none
#   GpuMatmulTest.MmaOpAndCast                         1 launch, RELU, writes half
#   GpuMatmulTest.MatmulWithBias                       1 launch, BIAS
#   GpuMatmulTest.BatchedFloatMatmulWithTransposedOperand
#   GpuMatmulTest.BatchedBf16MatmulBroadcastsTheBatch
#   GpuMatmulTest.LinearBiasTanhGeluCastIsOneLaunch    1 launch, GELU_BIAS
#   GpuMatmulTest.LinearBiasErfGeluIsAtMostTwoLaunches <= 2 launches, BIAS
#   GpuMatmulTest.LinearWithoutBiasFloat
#   GpuMatmulTest.SdpaMatchesTheReference              attention kernel, causal and not
#   GpuMatmulTest.MetaOnlyFusionRunsWithZeroLaunches   0 launches
#   GpuMatmulTest.Seed001NanoGptLayerNormBookendInputsIsOneLaunch
#   GpuExecutorTest.MatmulOperandWithoutUnitStrideIsReportedUnavailable

echo "== 2. examples"
for example in matmul linear_bias linear_bias_gelu_tanh linear_bias_gelu_erf sdpa_fwd \
               meta_op_chain seed001_nanogpt_layer_norm; do
  echo "-- $example"
  "$cli" run "$here/resources/examples/$example.py" --backend cuda --check \
    | grep -E '^cuda run on|segment .*cuBLASLt|copy kernel|^check' || status=1
done
echo "-- seed001_nanogpt_layer_norm with bookend=inputs_and_outputs (expect 1 kernel launch)"
"$cli" run "$here/resources/examples/seed001_nanogpt_layer_norm.py" --backend cuda --check \
  --set bookend=inputs_and_outputs | grep -E '^cuda run on|^check' || status=1

echo "== 3. no binary needs libcuda.so"
for f in "$tests" "$cli"; do
  if readelf -d "$f" | grep -q 'NEEDED.*libcuda\.so'; then
    echo "error: $f needs libcuda.so" >&2
    status=1
  fi
done
exit $status
