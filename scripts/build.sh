#!/usr/bin/env bash
# Configures (once) and builds in ./build with the "dev" preset of CMakePresets.json:
# RelWithDebInfo with line tables (-g1: backtraces and perf work; full -g costs a third more
# compile time), warnings are errors (so CI fails on one). A build dir configured before the
# preset existed is reconfigured once to turn -Werror on.
#
#   scripts/build.sh [TARGET...]
#
# Builds only the targets named (run-main.sh: hasim; run-tests.sh: hasim and hasim_tests),
# or, with none, the default set: hasim and hasim_tests. Benchmarks build on request
# (`scripts/build.sh benchmarks` or bench_NAME), the fuzz target in its own build
# (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# A build dir configured before the preset's debug-info level (issue 19) is reconfigured too.
if [ ! -f build/build.ninja ] || ! grep -q '^HASIM_WERROR:BOOL=ON$' build/CMakeCache.txt ||
  ! grep -q '^CMAKE_CXX_FLAGS_RELWITHDEBINFO:STRING=-O2 -g1 -DNDEBUG$' build/CMakeCache.txt; then
  cmake --preset dev >/dev/null
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(all)
cmake --build build -j "$(nproc)" --target "${targets[@]}"
