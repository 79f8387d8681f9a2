#!/usr/bin/env bash
# Configures (once) and builds hasim, its tests and benchmarks in ./build with the "dev"
# preset of CMakePresets.json: RelWithDebInfo, warnings are errors (so CI fails on one).
# A build dir configured before the preset existed is reconfigured once to turn -Werror on.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ] || ! grep -q '^HASIM_WERROR:BOOL=ON$' build/CMakeCache.txt; then
  cmake --preset dev >/dev/null
fi
cmake --build build -j "$(nproc)"
