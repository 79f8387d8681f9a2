#!/usr/bin/env bash
# Builds the test suite with AddressSanitizer and UndefinedBehaviorSanitizer and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build-asan/build.ninja ] || cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" >/dev/null
cmake --build build-asan -j "$(nproc)" --target hasim hasim_tests
# Sanitized code runs tens of times slower: property tests check fewer random cases here (the
# full count runs in ./run-tests.sh), and the search for a known counterexample ([finding]),
# whose shrunk form runs here as a scenario test anyway, and hasim check's many-run soak of a
# correct configuration ([slow]; its weak-configuration searches do run here) are left to the
# normal build.
RC_PARAMS="max_success=15" ./build-asan/hasim_tests "~[finding]~[slow]"
tests/cli/run.sh build-asan/hasim
