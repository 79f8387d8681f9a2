#!/usr/bin/env bash
# Builds the test suite with AddressSanitizer and UndefinedBehaviorSanitizer and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what it runs (hasim and hasim_tests), at -O1 with line tables: the level
# AddressSanitizer's documentation recommends, several times faster to run than -O0 and
# cheaper to compile than -O2 -g. A build dir configured otherwise (the Debug build this
# stage used before issue 19) is configured again.
flags="-O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if [ ! -f build-asan/build.ninja ] ||
  ! grep -qxF "CMAKE_CXX_FLAGS:STRING=$flags" build-asan/CMakeCache.txt; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="$flags" >/dev/null
fi
cmake --build build-asan -j "$(nproc)" --target hasim hasim_tests
# Sanitized code runs tens of times slower: property tests check fewer random cases here (the
# full count runs in ./run-tests.sh), and the search for a known counterexample ([finding]),
# whose shrunk form runs here as a scenario test anyway, and hasim check's many-run soak of a
# correct configuration ([slow]; its weak-configuration searches do run here) are left to the
# normal build.
RC_PARAMS="max_success=15" ./build-asan/hasim_tests "~[finding]~[slow]"
tests/cli/run.sh build-asan/hasim
