#!/usr/bin/env bash
# On a GPU machine: builds fuserlab-cli and the tests of `fuserlab-cli bench`,
# runs them (the GPU ones skip without a GPU), then benches a few bundled
# examples and leaves their JSON under ${OUT:-out/bench}.
# Usage: tests/perf/bench_gpu.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${OUT:-out/bench}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFUSERLAB_GUI=OFF -DCUDAToolkit_ROOT=/usr/local/cuda
fi
cmake --build "$build" --target fuserlab-cli fuserlab_cli_tests fuserlab_runtime_tests \
  fuserlab_gpu_tests
"$build/tests/runtime/fuserlab_runtime_tests" --gtest_filter='SampleStatistics*:FusionBytes*'
"$build/tests/gpu/fuserlab_gpu_tests" --gtest_filter='GpuBenchmark*'
"$build/tests/cli/fuserlab_cli_tests" --gtest_filter='CliBench*'
mkdir -p "$out"
for example in silu_mul rms_norm layer_norm; do
  "$build/app/cli/fuserlab-cli" bench "resources/examples/$example.py" \
    --json "$out/$example.json"
done
