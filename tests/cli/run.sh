#!/usr/bin/env bash
# End-to-end tests of the `hasim` command: exit codes, summaries, replay, refusals.
# Usage: tests/cli/run.sh PATH/TO/hasim   (run from the source root, as ctest does)
set -u
hasim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

expect() {  # expect NAME EXIT-CODE PATTERN -- COMMAND...
  local name=$1 code=$2 pattern=$3
  shift 4
  local output status
  output=$("$@" 2>&1)
  status=$?
  if [ "$status" -ne "$code" ] || ! grep -qE -- "$pattern" <<<"$output"; then
    echo "FAIL: $name: exit $status (want $code), output lacks /$pattern/:"
    sed 's/^/    /' <<<"$output" | head -20
    failures=$((failures + 1))
  else
    echo "ok:   $name"
  fi
}

demo=scenarios/examples/demo-heartbeat.json
fast=scenarios/examples/demo-fast-clock.json

expect "version" 0 "^hasim [0-9]+\.[0-9]+\.[0-9]+" -- "$hasim" --version
expect "subcommand version" 0 "^hasim [0-9]" -- "$hasim" run --version
expect "help lists subcommands" 0 "replay" -- "$hasim" --help
expect "subcommand help" 0 "--determinism" -- "$hasim" run --help
expect "no subcommand" 2 "subcommand" -- "$hasim"
expect "unknown subcommand" 2 "hasim --help" -- "$hasim" frobnicate
expect "unknown option" 2 "--sede" -- "$hasim" run "$demo" --sede 3
expect "built-in demo holds" 0 "all properties held" -- "$hasim" run
expect "demo summary" 0 "trace +[0-9,]+ events, hash [0-9a-f]{16}" -- "$hasim" run "$demo"
expect "violation exits 1" 1 "VIOLATED +no-false-suspicion" -- "$hasim" run "$fast"
expect "violation explained" 1 "cause: t=.*recv from=n3/heartbeat" -- "$hasim" run "$fast"
expect "missing file" 2 "cannot read the scenario file" -- "$hasim" run "$tmp/nope.json"
printf '{"name": "x", "duraton": "1m", "nodes": 2}' >"$tmp/bad.json"
expect "bad scenario names path and fix" 2 'did you mean "duration"' -- "$hasim" run "$tmp/bad.json"
expect "validate bad" 2 '\$\.duraton' -- "$hasim" validate "$tmp/bad.json"
expect "validate good" 0 "ok: demo-heartbeat" -- "$hasim" validate "$demo"
expect "list" 0 "no-false-suspicion" -- "$hasim" list
expect "determinism" 0 "determinism ok" -- "$hasim" run "$demo" --determinism

# Seeds: the hash depends on the seed and only on it.
h1=$("$hasim" run "$demo" --seed 5 | grep -o 'hash [0-9a-f]*')
h2=$("$hasim" run "$demo" --seed 5 | grep -o 'hash [0-9a-f]*')
h3=$("$hasim" run "$demo" --seed 6 | grep -o 'hash [0-9a-f]*')
if [ "$h1" = "$h2" ] && [ "$h1" != "$h3" ]; then echo "ok:   seed decides the hash"; else
  echo "FAIL: seed decides the hash ($h1 / $h2 / $h3)"; failures=$((failures + 1)); fi

# Replay: record, reproduce, then tamper and see the divergence named.
expect "record replay" 0 "replay +written" -- "$hasim" run "$demo" --trace "$tmp/run.trace.jsonl" --replay-out "$tmp/run.replay.json"
expect "refuses to overwrite" 2 "already exists; pass --force" -- "$hasim" run "$demo" --trace "$tmp/run.trace.jsonl"
expect "replay reproduces" 0 "reproduced: trace hash" -- "$hasim" replay "$tmp/run.replay.json"
expect "fast replay exits 1" 1 "VIOLATED" -- "$hasim" run "$fast" --replay-out "$tmp/fast.replay.json"
expect "violating replay reproduces" 1 "reproduced" -- "$hasim" replay "$tmp/fast.replay.json"
sed 's/"at": "2m"/"at": "3m"/' "$tmp/run.replay.json" >"$tmp/changed.replay.json"
expect "divergence named" 3 "first differing event: #[0-9]+" -- "$hasim" replay "$tmp/changed.replay.json"
expect "divergence shows both" 3 "expected: .*crash" -- "$hasim" replay "$tmp/changed.replay.json"
printf '{"replayFormat": 1}' >"$tmp/broken.replay.json"
expect "bad replay" 2 '\$\.expected' -- "$hasim" replay "$tmp/broken.replay.json"

# Election scenarios and the failover report.
election=scenarios/election
expect "election steady state holds" 0 "held +single-leader" -- "$hasim" run "$election/steady-state.json"
expect "long pause is a harmful overlap" 1 "Harmful: both had writes accepted" -- "$hasim" run "$election/pause-long-gc.json"
expect "overlap names both actors" 1 "cp-1/kube-controller-manager .* and cp-3/kube-controller-manager both acted" -- "$hasim" run "$election/pause-long-gc.json"
expect "report failover" 0 "wrote .*failover.html" -- "$hasim" report failover --trials 3 --out "$tmp/failover"
for f in failover.json failover.md failover.html; do
  if [ -s "$tmp/failover/$f" ]; then echo "ok:   report wrote $f"; else
    echo "FAIL: report wrote $f"; failures=$((failures + 1)); fi
done
expect "report refuses to overwrite" 2 "use --force" -- "$hasim" report failover --trials 3 --out "$tmp/failover"
expect "report checks client-go's rule" 2 "renewDeadline must be greater than retryPeriod\*JitterFactor" -- "$hasim" report failover --renew-deadline 2s --out "$tmp/f2"
expect "unknown report" 2 "unknown report" -- "$hasim" report nosuch

# Trace lines are JSON objects with t, kind.
if head -1 "$tmp/run.trace.jsonl" | grep -qE '^\{"t":0,.*"kind":"start"'; then echo "ok:   trace format"; else
  echo "FAIL: trace format"; failures=$((failures + 1)); fi

if [ "$failures" -gt 0 ]; then echo "$failures CLI test(s) failed"; exit 1; fi
echo "all CLI tests passed"
