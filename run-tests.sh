#!/usr/bin/env bash
# Builds and runs the whole test suite (Catch2 + RapidCheck unit tests and the CLI tests),
# installing what is missing first.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/install-deps.sh
./scripts/build.sh hasim hasim_tests
ctest --test-dir build --output-on-failure
