#!/usr/bin/env bash
# Builds TARGETs in ./build-sanitize: clang++ with AddressSanitizer and
# UndefinedBehaviorSanitizer, -DHASIM_FUZZ=ON. One build serves both scripts/fuzz.sh
# (fuzz_load) and scripts/test-sanitizers.sh (hasim, hasim_tests): the library is compiled
# once for the two (CI ran two sanitized builds of it before, a third of its time).
# The library: -O1 with line tables, the level AddressSanitizer's and libFuzzer's
# documentation recommend, several times faster to run than -O0 and cheaper to compile than
# -O2 -g, plus libFuzzer's coverage instrumentation (CMakeLists.txt). The test files: -O0
# without debug info and without coverage, 2.4 times cheaper to compile than at the library's
# flags, 8 to a unit (HASIM_TEST_UNITY, as the dev build): a sanitized build was most of CI's
# time. The library too is compiled 8 files to a unit (HASIM_LIB_UNITY): 7 min instead of 13
# on 2 cores. A build dir configured otherwise is
# configured again. Installs clang and libFuzzer's runtime (Debian 12: libclang-rt-14-dev) if
# missing.
#
#   scripts/sanitized-build.sh TARGET...
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/sanitized-build.sh TARGET..." >&2; exit 2; }
./scripts/install-deps.sh clang libclang-rt-14-dev
build=build-sanitize
flags="-O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
test_flags="-O0;-g0"
if [ ! -f "$build/build.ninja" ] ||
  ! grep -qxF "CMAKE_CXX_FLAGS:STRING=$flags" "$build/CMakeCache.txt" ||
  ! grep -qxF "HASIM_TEST_OPTIONS:STRING=$test_flags" "$build/CMakeCache.txt" ||
  ! grep -qxF "HASIM_TEST_UNITY:BOOL=ON" "$build/CMakeCache.txt" ||
  ! grep -qxF "HASIM_LIB_UNITY:BOOL=ON" "$build/CMakeCache.txt"; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_COMPILER=clang++ \
    -DHASIM_FUZZ=ON -DCMAKE_CXX_FLAGS="$flags" -DHASIM_TEST_OPTIONS="$test_flags" -DHASIM_TEST_UNITY=ON \
    -DHASIM_LIB_UNITY=ON >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target "$@"
