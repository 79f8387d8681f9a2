#!/usr/bin/env bash
# Builds the test suite with AddressSanitizer and UndefinedBehaviorSanitizer and runs it.
# The build is ./build-sanitize (scripts/sanitized-build.sh: clang++ at -O1 with line tables),
# shared with scripts/fuzz.sh, so CI compiles the sanitized library once.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/sanitized-build.sh hasim hasim_tests
# Sanitized code runs tens of times slower: property tests check fewer random cases here (the
# full count runs in ./run-tests.sh), and the search for a known counterexample ([finding]),
# whose shrunk form runs here as a scenario test anyway, and hasim check's many-run soak of a
# correct configuration ([slow]; its weak-configuration searches do run here) are left to the
# normal build.
RC_PARAMS="max_success=15" ./build-sanitize/hasim_tests "~[finding]~[slow]"
tests/cli/run.sh build-sanitize/hasim
