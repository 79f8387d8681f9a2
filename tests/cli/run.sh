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
printf '{"name": "q", "duration": "1m", "nodes": 3, "etcd": {"quotaBackendBytes": "2GiB"}}' >"$tmp/bad-quota.json"
expect "bad etcd quota names the field" 2 '\$\.etcd\.quotaBackendBytes.*-1 to turn the quota off' -- "$hasim" run "$tmp/bad-quota.json"
printf '{"name": "f", "duration": "1m", "nodes": 3, "etcd": {}, "faults": [{"at": "1s", "kind": "etcd-fill", "node": "n1"}]}' >"$tmp/bad-fill.json"
expect "etcd-fill without bytes" 2 'needs "bytes"' -- "$hasim" validate "$tmp/bad-fill.json"
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
# --history (issue 13 part 5): the etcd store's client history as hasim-history JSON, refused
# over an existing file without --force, and a path that cannot be written is named.
expect "history written" 0 "history +[0-9,]+ etcd client operations written to .*h.json" -- "$hasim" run "$demo" --history "$tmp/h.json"
if grep -q '^{"format":"hasim-history","version":1,"operations":\[' "$tmp/h.json"; then echo "ok:   history is a hasim-history document"; else
  echo "FAIL: history is a hasim-history document"; failures=$((failures + 1)); fi
expect "history refuses to overwrite" 2 "h.json already exists; pass --force" -- "$hasim" run "$demo" --history "$tmp/h.json"
expect "history --force overwrites" 0 "history +[0-9,]+ etcd client operations" -- "$hasim" run "$demo" --history "$tmp/h.json" --force
expect "history in a missing folder" 2 "cannot write the history to .*/nodir/h.json: its folder does not exist" -- "$hasim" run "$demo" --history "$tmp/nodir/h.json"
expect "history onto a folder" 2 "cannot write the history to .*: it is a directory" -- "$hasim" run "$demo" --history "$tmp" --force
printf '{"replayFormat": 1}' >"$tmp/broken.replay.json"
expect "bad replay" 2 '\$\.expected' -- "$hasim" replay "$tmp/broken.replay.json"

# The ideal store's node was "etcd" before issue 11 part 5: a format-1 replay still replays
# exactly, and an old scenario naming "etcd" loads with a note per reference.
old_replay=tests/fixtures/replay-format-1-etcd-names.json
expect "format-1 replay reproduces" 0 "reproduced: trace hash 1834d228d93c5f25" -- "$hasim" replay "$old_replay"
old_scenario=tests/fixtures/old-store-name.json  # the scenario that replay embeds
expect "old store name noted" 0 'old-store-name.json: \$\.faults\[0\]\.isolate\[0\]: note: "etcd" is the ideal store.s old node name, read as "store"' -- "$hasim" validate "$old_scenario"
expect "old scenario runs renamed" 0 "all properties held" -- "$hasim" run "$old_scenario"

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

# The cloudcore report (issue 14 part 8): a small run (one fault, one load balancer, both
# modes), the same bytes at --jobs 1 and 2, and its flags refused naming the fix.
cc=(report cloudcore --trials 3 --faults crash-restart --load-balancers service --quiet)
expect "report cloudcore" 0 "wrote .*cloudcore.html" -- "$hasim" "${cc[@]}" --jobs 1 --out "$tmp/cc1"
expect "report cloudcore --jobs 2" 0 "wrote .*cloudcore.html" -- "$hasim" "${cc[@]}" --jobs 2 --out "$tmp/cc2"
for f in cloudcore.json cloudcore.md cloudcore.html cloudcore.cells.csv cloudcore.trials.csv; do
  if [ -s "$tmp/cc1/$f" ] && cmp -s "$tmp/cc1/$f" "$tmp/cc2/$f"; then echo "ok:   cloudcore $f the same at --jobs 1 and 2"; else
    echo "FAIL: cloudcore $f the same at --jobs 1 and 2"; failures=$((failures + 1)); fi
done
expect "cloudcore refuses an unknown mode" 2 '--modes "v1.6": unknown value "v1.6"; give a comma-separated list of v1.3,v1.5,v1.7\+' -- "$hasim" report cloudcore --modes v1.6 --out "$tmp/bad"
expect "cloudcore refuses keepalived in active-active" 2 "behind the Service only" -- "$hasim" report cloudcore --modes v1.7+ --load-balancers keepalived --out "$tmp/bad"
expect "cloudcore refuses a short horizon" 2 "--horizon 2m0s must be at least 1m longer than --partition" -- "$hasim" report cloudcore --horizon 2m --out "$tmp/bad"
expect "cloudcore flag on failover" 2 "--load-balancers applies to .hasim report cloudcore. only" -- "$hasim" report failover --load-balancers service --out "$tmp/bad"

# The upgrade-skew report: small runs (one mode, 3 nodes), shards merged byte-identical to a
# single run, refusals. These need the real trial model (reports/upgrade_trial.cpp).
skew=(report upgrade-skew --trials 20 --nodes 3 --modes lease)
expect "list names upgrade-skew" 0 "upgrade-skew" -- "$hasim" list
expect "report upgrade-skew" 0 "wrote .*upgrade-skew.html" -- "$hasim" "${skew[@]}" --jobs 2 --out "$tmp/skew"
expect "upgrade-skew prints the comparison" 0 "Comparison with KEP-4355" -- "$hasim" "${skew[@]}" --out "$tmp/skew-md"
for f in upgrade-skew.json upgrade-skew.md upgrade-skew.html; do
  if [ -s "$tmp/skew/$f" ]; then echo "ok:   upgrade-skew wrote $f"; else
    echo "FAIL: upgrade-skew wrote $f"; failures=$((failures + 1)); fi
done
expect "upgrade-skew refuses to overwrite" 2 "use --force" -- "$hasim" "${skew[@]}" --out "$tmp/skew"
expect "upgrade-skew --force overwrites" 0 "wrote" -- "$hasim" "${skew[@]}" --jobs 1 --out "$tmp/skew" --force
expect "shard 0/2" 0 "wrote .*upgrade-skew.shard-0-of-2.json" -- "$hasim" "${skew[@]}" --shard 0/2 --out "$tmp/shards"
expect "shard 1/2" 0 "trials \[20, 40\) of 40" -- "$hasim" "${skew[@]}" --shard 1/2 --out "$tmp/shards"
expect "merge" 0 "merged 2 shards" -- "$hasim" merge "$tmp/shards/upgrade-skew.shard-1-of-2.json" "$tmp/shards/upgrade-skew.shard-0-of-2.json" --out "$tmp/merged"
for f in upgrade-skew.json upgrade-skew.md upgrade-skew.html; do
  # --jobs 1 (the --force run) against two shards merged: same bytes.
  if cmp -s "$tmp/skew/$f" "$tmp/merged/$f"; then echo "ok:   merged $f equals a single run"; else
    echo "FAIL: merged $f equals a single run"; failures=$((failures + 1)); fi
done
if cmp -s "$tmp/skew/upgrade-skew.md" "$tmp/skew-md/upgrade-skew.md"; then echo "ok:   --jobs 1 equals --jobs 2"; else
  echo "FAIL: --jobs 1 equals --jobs 2"; failures=$((failures + 1)); fi
expect "merge refuses to overwrite" 2 "use --force" -- "$hasim" merge "$tmp"/shards/upgrade-skew.shard-*-of-2.json --out "$tmp/merged"
expect "merge names a missing shard" 2 "missing 1 of 2 shards: 1/2" -- "$hasim" merge "$tmp/shards/upgrade-skew.shard-0-of-2.json" --out "$tmp/m2"
expect "merge names a duplicate shard" 2 "are both shard 0/2" -- "$hasim" merge "$tmp/shards/upgrade-skew.shard-0-of-2.json" "$tmp/shards/upgrade-skew.shard-0-of-2.json" --out "$tmp/m3"
expect "merge refuses a report file" 2 "not a shard file" -- "$hasim" merge "$tmp/skew/upgrade-skew.json" --out "$tmp/m4"
expect "merge of a missing file" 2 "cannot read the shard file" -- "$hasim" merge "$tmp/nope.json" --out "$tmp/m5"
expect "bad --shard" 2 "--shard: .*index I must be below N" -- "$hasim" "${skew[@]}" --shard 2/2 --out "$tmp/bad"
expect "bad --shard form" 2 "expected I/N" -- "$hasim" "${skew[@]}" --shard 1 --out "$tmp/bad"
expect "bad --nodes" 2 "--nodes .*e.g. --nodes 3,5" -- "$hasim" report upgrade-skew --nodes 1 --out "$tmp/bad"
expect "bad --modes" 2 "unknown value \"cle\"" -- "$hasim" report upgrade-skew --modes cle --out "$tmp/bad"
expect "bad --from" 2 "--from \"1.31\" is not a semantic version" -- "$hasim" report upgrade-skew --from 1.31 --out "$tmp/bad"
expect "--from must be older" 2 "must be older than --to" -- "$hasim" report upgrade-skew --from 1.33.0 --out "$tmp/bad"
expect "failover flag on upgrade-skew" 2 "--pause applies to .hasim report failover" -- "$hasim" report upgrade-skew --pause 5s --out "$tmp/bad"
if [ ! -e "$tmp/bad" ]; then echo "ok:   refused runs write nothing"; else
  echo "FAIL: refused runs write nothing"; failures=$((failures + 1)); fi

# hasim check: a weak configuration is found, shrunk, written and replayed; a correct one holds.
weak=scenarios/election/clock-rate-above-ld-rd.json
printf '{"name": "noprops", "duration": "1m", "nodes": 3, "controlPlane": {}}' >"$tmp/noprops.json"
expect "check finds a weak configuration" 1 "verdict +VIOLATED; reproduce with: hasim replay $tmp/check/replay.json" -- "$hasim" check "$weak" --runs 30 --out "$tmp/check"
expect "check names the broken assumption" 1 "assumption +broken: what can stall a renewal adds up to .* clock rates differing by 1.55x" -- "$hasim" check "$weak" --runs 30 --out "$tmp/check" --force
for f in check.json replay.json trace.jsonl explanation.md timeline.html; do
  if [ -s "$tmp/check/$f" ]; then echo "ok:   check wrote $f"; else
    echo "FAIL: check wrote $f"; failures=$((failures + 1)); fi
done
expect "check replay reproduces" 1 "replay +reproduced: trace hash [0-9a-f]{16} matches" -- "$hasim" replay "$tmp/check/replay.json"
expect "check replay is a runnable scenario" 1 "VIOLATED +single-leader" -- "$hasim" replay "$tmp/check/replay.json"
if grep -q "<svg" "$tmp/check/timeline.html" && ! grep -qE "<script|https?://[^\"]*\.(js|css)" "$tmp/check/timeline.html"; then
  echo "ok:   timeline is self-contained HTML with SVG"; else echo "FAIL: timeline is self-contained HTML with SVG"; failures=$((failures + 1)); fi
expect "check refuses to overwrite" 2 "use --force" -- "$hasim" check "$weak" --runs 5 --out "$tmp/check"
expect "check on the built-in scenario holds" 0 "verdict +no violation in 20 runs" -- "$hasim" check --runs 20 --out "$tmp/check-default"
expect "check summary" 0 "kinds covered" -- "$hasim" check --runs 20 --out "$tmp/check-default" --force
expect "check --stop-at-first" 1 "check +8 runs in" -- "$hasim" check "$weak" --runs 100 --stop-at-first --out "$tmp/check-first"
expect "check --kinds" 0 "1 of 1 kinds covered" -- "$hasim" check --runs 5 --kinds pause --out "$tmp/check-kinds"
expect "check bad --kinds" 2 'unknown fault kind "paus" \(did you mean "pause"\?\)' -- "$hasim" check --kinds paus --out "$tmp/check-bad"
expect "check bad --runs" 2 "--runs must be between" -- "$hasim" check --runs 0 --out "$tmp/check-bad"
expect "check without properties" 2 "names no properties" -- "$hasim" check "$tmp/noprops.json" --out "$tmp/check-bad"
# A diverged replay names the first differing event.
sed 's/"traceHash": "[0-9a-f]*"/"traceHash": "0000000000000000"/' "$tmp/check/replay.json" >"$tmp/diverged.json"
cp "$tmp/check/trace.jsonl" "$tmp/trace.jsonl"
expect "diverged replay" 3 "REPLAY DIVERGED" -- "$hasim" replay "$tmp/diverged.json"
# With the recorded trace beside it, a changed run names the exact first differing event.
sed 's/^  "seed": [0-9]*$/  "seed": 7/' "$tmp/check/replay.json" >"$tmp/reseeded.json"
expect "diverged replay names the event" 3 "first differing event: #[0-9]+" -- "$hasim" replay "$tmp/reseeded.json"

# Trace lines are JSON objects with t, kind.
if head -1 "$tmp/run.trace.jsonl" | grep -qE '^\{"t":0,.*"kind":"start"'; then echo "ok:   trace format"; else
  echo "FAIL: trace format"; failures=$((failures + 1)); fi

# Built-in scenarios by name (hasim run NAME, hasim list), found from any directory, and
# $HASIM_DATA_DIR. An existing file is still a file, even when a built-in has its name.
abs_hasim=$(realpath "$hasim")
expect "run by short name" 0 "scenario +election-leader-crash" -- "$hasim" run leader-crash
expect "run by full name elsewhere" 0 "scenario +election-leader-crash" -- \
  bash -c 'cd / && "$0" run election/leader-crash.json' "$abs_hasim"
expect "validate by name" 0 "ok: upgrade-lease-3" -- "$hasim" validate lease-upgrade-3
expect "unknown name lists close names" 2 "close names: election/leader-crash" -- \
  "$hasim" run leadr-crash
expect "list names built-in scenarios" 0 "^  election/leader-crash$" -- "$hasim" list
cp "$demo" "$tmp/leader-crash"
expect "an existing file is a path" 0 "scenario +demo-heartbeat" -- \
  bash -c 'cd "$1" && "$0" run leader-crash' "$abs_hasim" "$tmp"
mkdir -p "$tmp/data/scenarios/a" "$tmp/data/scenarios/b"
cp "$demo" "$tmp/data/scenarios/a/demo.json"
cp "$fast" "$tmp/data/scenarios/b/demo.json"
expect "HASIM_DATA_DIR ambiguous name" 2 '"demo" names 2 built-in scenarios: a/demo, b/demo' -- \
  env HASIM_DATA_DIR="$tmp/data" "$hasim" run demo
expect "HASIM_DATA_DIR full name" 1 "scenario +demo-fast-clock" -- \
  env HASIM_DATA_DIR="$tmp/data" "$hasim" run b/demo
expect "HASIM_DATA_DIR wrong" 2 'HASIM_DATA_DIR is ".*", which has no scenarios/ folder' -- \
  env HASIM_DATA_DIR="$tmp/none" "$hasim" list
# Studies from the registry: listing, per-study help and flags, shards and merge for every
# study, progress lines off a terminal, --quiet.
expect "report --list" 0 "failover .*leader" -- "$hasim" report --list
expect "report without a study" 2 "give a study to run" -- "$hasim" report
expect "study help shows its own flags" 0 "--modes" -- "$hasim" report upgrade-skew --help
if "$hasim" report upgrade-skew --help | grep -q -- "--pause"; then
  echo "FAIL: upgrade-skew --help shows failover's --pause"; failures=$((failures + 1)); else
  echo "ok:   upgrade-skew --help lacks failover's --pause"; fi
expect "upgrade-skew flag on failover" 2 "--modes applies to .hasim report upgrade-skew" -- "$hasim" report failover --modes lease --out "$tmp/bad"
fo=(report failover --trials 2 --seed 3)
expect "failover shard 0/2" 0 "wrote .*failover.shard-0-of-2.json" -- "$hasim" "${fo[@]}" --shard 0/2 --out "$tmp/fo-shards" --quiet
expect "failover shard 1/2" 0 "trials \[3, 6\) of 6" -- "$hasim" "${fo[@]}" --shard 1/2 --out "$tmp/fo-shards" --quiet
expect "failover merge" 0 "merged 2 shards" -- "$hasim" merge "$tmp"/fo-shards/failover.shard-*-of-2.json --out "$tmp/fo-merged" --quiet
"$hasim" "${fo[@]}" --jobs 1 --out "$tmp/fo-single" >/dev/null 2>"$tmp/fo-progress.txt"
for f in failover.json failover.md failover.html failover.cells.csv failover.trials.csv; do
  if cmp -s "$tmp/fo-single/$f" "$tmp/fo-merged/$f"; then echo "ok:   merged $f equals a single run"; else
    echo "FAIL: merged $f equals a single run"; failures=$((failures + 1)); fi
done
if grep -qE "^failover: 6/6 trials in [0-9]+s, [0-9]+/s$" "$tmp/fo-progress.txt"; then
  echo "ok:   progress line off a terminal"; else
  echo "FAIL: progress line off a terminal:"; sed 's/^/    /' "$tmp/fo-progress.txt"; failures=$((failures + 1)); fi
expect "merge refuses another study's shard" 2 "is a shard of failover but" -- "$hasim" merge "$tmp/shards/upgrade-skew.shard-0-of-2.json" "$tmp/fo-shards/failover.shard-1-of-2.json" --out "$tmp/m6"
quiet_err=$("$hasim" "${fo[@]}" --quiet --out "$tmp/fo-quiet" 2>&1 >/dev/null)
check_err=$("$hasim" check --runs 3 --quiet --out "$tmp/check-quiet" 2>&1 >/dev/null)
if [ -z "$quiet_err" ] && [ -z "$check_err" ]; then echo "ok:   --quiet silences progress"; else
  echo "FAIL: --quiet silences progress: $quiet_err $check_err"; failures=$((failures + 1)); fi
check_progress=$("$hasim" check --runs 3 --out "$tmp/check-progress" 2>&1 >/dev/null)
if grep -qE "^check: 3/3 runs in" <<<"$check_progress"; then echo "ok:   check progress off a terminal"; else
  echo "FAIL: check progress off a terminal: $check_progress"; failures=$((failures + 1)); fi

if [ "$failures" -gt 0 ]; then echo "$failures CLI test(s) failed"; exit 1; fi
echo "all CLI tests passed"
