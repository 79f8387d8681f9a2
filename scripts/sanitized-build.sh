#!/usr/bin/env bash
# Builds TARGETs in ./build-sanitize: clang++ at -O1 with line tables, AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage instrumentation (fuzzer-no-link), with
# -DHASIM_FUZZ=ON. One build serves both scripts/fuzz.sh (fuzz_load) and
# scripts/test-sanitizers.sh (hasim, hasim_tests): the library is compiled once for the two
# (CI ran two sanitized builds of it before, a third of its time). -O1: the level
# AddressSanitizer's and libFuzzer's documentation recommend, several times faster to run
# than -O0 and cheaper to compile than -O2 -g. A build dir configured otherwise is configured
# again. Installs clang and libFuzzer's runtime (Debian 12: libclang-rt-14-dev) if missing.
#
#   scripts/sanitized-build.sh TARGET...
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/sanitized-build.sh TARGET..." >&2; exit 2; }
./scripts/install-deps.sh clang libclang-rt-14-dev
build=build-sanitize
flags="-O1 -g1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if [ ! -f "$build/build.ninja" ] ||
  ! grep -qxF "CMAKE_CXX_FLAGS:STRING=$flags" "$build/CMakeCache.txt"; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_COMPILER=clang++ \
    -DHASIM_FUZZ=ON -DCMAKE_CXX_FLAGS="$flags" >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target "$@"
