#!/usr/bin/env bash
# Packs what python/build_on_device.sh needs from this machine's build into
# build-carry/ (git-ignored, about 18 MB): the core's static libraries, built
# position-independent (FUSERLAB_PYTHON=ON) and stripped of debug info, and
# the CUDA runtime's static library. Usage: python/make_carry.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
grep -q '^FUSERLAB_PYTHON:BOOL=ON' "$build/CMakeCache.txt" || {
  echo "error: $build is not configured with FUSERLAB_PYTHON=ON (the libraries need -fPIC)" >&2
  exit 2
}
cmake --build "$build" --target fuserlab_repro fuserlab_frontend fuserlab_runtime fuserlab_report -j2 >/dev/null
rm -rf build-carry && mkdir -p build-carry/lib
for lib in repro frontend runtime compiler cuda reference tensor codegen segmenter passes scheduler ops multidevice report ir; do
  strip --strip-debug -o "build-carry/lib/libfuserlab_$lib.a" "$build/core/$lib/libfuserlab_$lib.a"
done
cuda="${CUDAToolkit_ROOT:-/usr/local/cuda}"
cp "$cuda/lib64/libcudart_static.a" build-carry/lib/
du -sh build-carry
