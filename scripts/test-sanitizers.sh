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
#
# Two processes, one per core: the golden and trace-kind tests (every scenario run twice,
# about half of the suite's time) beside all the rest; each writes its own log, printed when
# both are done, and the stage fails if either does.
logs=$(mktemp -d)
halves=("[golden],[trace-kinds]" "~[golden]~[trace-kinds]~[finding]~[slow]")
pids=()
for i in 0 1; do
  RC_PARAMS="max_success=15" ./build-sanitize/hasim_tests "${halves[$i]}" >"$logs/$i.log" 2>&1 &
  pids+=($!)
done
status=0
for i in 0 1; do
  echo "== sanitized hasim_tests \"${halves[$i]}\"" >&2
  if wait "${pids[$i]}"; then
    tail -n 3 "$logs/$i.log" >&2
  else
    cat "$logs/$i.log" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] || exit 1
tests/cli/run.sh build-sanitize/hasim
