#!/usr/bin/env bash
# Builds the test suite with AddressSanitizer and UndefinedBehaviorSanitizer and runs it.
# The build is ./build-sanitize (scripts/sanitized-build.sh: clang++, the library at -O1 with
# line tables, the test files at -O0),
# shared with scripts/fuzz.sh, so CI compiles the sanitized library once.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/sanitized-build.sh hasim hasim_tests
# Sanitized code runs tens of times slower: property tests check fewer random cases here (the
# full count runs in ./run-tests.sh), and the search for a known counterexample ([finding]),
# whose shrunk form runs here as a scenario test anyway, and hasim check's many-run soak of a
# correct configuration ([slow]; its weak-configuration searches do run here) are left to the
# normal build. So are the tests that run a golden scenario again to read its trace or its
# verdict ([scenario-rerun]: the golden tests run each here once), the etcd-ha study's trials (30
# simulated minutes of an Etcd each; its flag checks stay), and the source lint ([tidy]),
# which reads files, not memory.
#
# Two processes, one per core, of about equal length: the golden tests (every scenario once)
# with the check tests except the weak-configuration searches ([weak]), then the CLI tests;
# beside them all the rest, those searches and the robustness tests included. The trace-kind
# test, which runs every scenario a second time only to read the kinds of its events, is left
# to the normal build (it checks vocabulary, not memory). Each writes its own log, printed
# when both are done, and the stage fails if either does.
logs=$(mktemp -d)
skip="~[finding]~[slow]~[scenario-rerun]~[etcd-ha-trials]~[tidy]"
halves=("[golden],[check]~[weak]$skip"
  "~[golden]~[trace-kinds]~[check]$skip,[weak]$skip")
pids=()
for i in 0 1; do
  {
    RC_PARAMS="max_success=15" ./build-sanitize/hasim_tests "${halves[$i]}" &&
      if [ "$i" -eq 0 ]; then tests/cli/run.sh build-sanitize/hasim; fi
  } >"$logs/$i.log" 2>&1 &
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
