#!/usr/bin/env bash
# GroupNorm and other normalizations over reshaped axes in one kernel
# (refine_reshaped_reductions, issue 45 item 2; on by default since
# 2026-11-30), for a GPU machine:
#   1. the GPU tests against the CPU reference: GpuGroupNormTest (the suite's
#      odd GroupNorm, a batch of one, groups of one channel, rows of one
#      pixel, a QK-norm), each asserting one kernel launch;
#   2. the suite's GroupNorms, the held-out VAE-size one (rows split over a
#      cluster), nvFuser's benchmark forms and a QK-norm, run with
#      `--backend cuda --check`;
#   3. `fuserlab-cli bench` of each with the pass off and on (on must stay
#      the faster), then the comparison with torch.compile of the suite's
#      GroupNorms and the held-out one, if torch is there.
# Usage: tests/gpu/run_group_norm_checks.sh [BUILD_DIR]   (default build-gpu)
# Needs LD_LIBRARY_PATH to reach libnvrtc (e.g. /usr/local/cuda/lib64).
set -u -o pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$here/build-gpu}"
tests="$build/tests/gpu/fuserlab_gpu_tests"
cli="$build/app/cli/fuserlab-cli"
status=0
on="--set refine_reshaped_reductions=on"
off="--set refine_reshaped_reductions=off"
files="tests/perf/suite/groupnorm_silu_8x320x63x63.py tests/perf/suite/groupnorm_silu_32x320x64x64.py
       tests/perf/heldout/groupnorm_silu_8x512x64x64.py tests/frontend/corpus/bench_groupnorm_reshape.py tests/frontend/corpus/bench_groupnorm_define_vector.py
       tests/frontend/corpus/qk_norm_heads_reshape.py"

echo "== 1. GPU tests"
"$tests" --gtest_filter='GpuGroupNormTest.*:GpuClusterRowsTest.*' || status=1

echo "== 2. checked against the CPU reference, the pass on"
for f in $files; do
  echo "-- $f"
  # shellcheck disable=SC2086
  "$cli" run "$here/$f" --backend cuda --check $on | grep -E '^check|error|launch' || status=1
done

echo "== 3. timings, the pass off then on"
for f in $files; do
  echo "-- $f (off)"
  # shellcheck disable=SC2086
  "$cli" bench "$here/$f" --samples 30 $off || status=1
  echo "-- $f (on)"
  # shellcheck disable=SC2086
  "$cli" bench "$here/$f" --samples 30 $on || status=1
done
if python3 -c 'import torch' 2>/dev/null; then
  python3 "$here/tests/perf/compare_torch.py" --suite --cli "$cli" \
    groupnorm_silu_8x320x63x63 groupnorm_silu_32x320x64x64 || status=1
  python3 "$here/tests/perf/compare_torch.py" --heldout --cli "$cli" \
    groupnorm_silu_8x512x64x64 || status=1
fi
exit $status
