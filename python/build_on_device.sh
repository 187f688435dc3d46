#!/usr/bin/env bash
# Builds the extension _fuserlab on the GPU machine, against that machine's
# Python (3.12 there) and pybind11, linking the core libraries carried from
# the build machine (python/make_carry.sh -> build-carry/lib). Writes
# build-carry/python/_fuserlab<suffix>.so; then
#   PYTHONPATH=python:build-carry/python python3 python/tests/gpu_check.py
set -euo pipefail
cd "$(dirname "$0")/.."
lib=build-carry/lib
[ -f "$lib/libfuserlab_runtime.a" ] || { echo "error: no $lib (run python/make_carry.sh here first)" >&2; exit 2; }
cuda="${CUDAToolkit_ROOT:-/usr/local/cuda}"
out=build-carry/python
mkdir -p "$out"
# pybind11's pip package says where its headers are; Debian's pybind11-dev
# puts them in /usr/include, next to what python3-config names.
includes=$(python3 -m pybind11 --includes 2>/dev/null ||
           python3 -c 'import sysconfig; print("-I" + sysconfig.get_paths()["include"])')
suffix=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
# The archives in dependency order inside one group (they refer to each other).
archives=()
for l in repro frontend runtime compiler cuda reference tensor codegen segmenter passes scheduler ops multidevice report ir; do
  archives+=("$lib/libfuserlab_$l.a")
done
g++ -O2 -std=c++20 -shared -fPIC -fvisibility=hidden \
  $includes -I. -I"$cuda/include" \
  python/src/bindings.cpp python/src/fusion_session.cpp python/src/tensor_exchange.cpp \
  -Wl,--start-group "${archives[@]}" -Wl,--end-group \
  "$lib/libcudart_static.a" -L"$cuda/lib64" -lnvrtc -lcublasLt -ldl -lpthread -lrt \
  -o "$out/_fuserlab$suffix"
echo "built $out/_fuserlab$suffix"
