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
# A build dir configured before the preset's debug-info level (issue 19) or its unity build of
# the test files is reconfigured too.
# With ccache installed (CI installs it), compiles go through it, with paths relative to the
# source tree (CCACHE_BASEDIR): the mutation run's scratch checkout (mutation/mutate.py) then
# reuses this build's objects for every file its mutant leaves alone.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_IGNOREOPTIONS=-Werror
fi
if [ ! -f build/build.ninja ] || ! grep -q '^HASIM_WERROR:BOOL=ON$' build/CMakeCache.txt ||
  ! grep -q '^CMAKE_CXX_FLAGS_RELWITHDEBINFO:STRING=-O2 -g1 -DNDEBUG$' build/CMakeCache.txt ||
  ! grep -q '^HASIM_TEST_UNITY:BOOL=ON$' build/CMakeCache.txt ||
  { [ ${#launcher[@]} -gt 0 ] && ! grep -q '^CMAKE_CXX_COMPILER_LAUNCHER' build/CMakeCache.txt; }; then
  cmake --preset dev "${launcher[@]}" >/dev/null
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(all)
cmake --build build -j "$(nproc)" --target "${targets[@]}"
