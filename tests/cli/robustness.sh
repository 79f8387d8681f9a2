#!/usr/bin/env bash
# Robustness of the `hasim` command: malformed, mistyped and huge inputs exit 2 with a message
# on stderr naming the problem (never a crash: a signal would show as exit 128+N), and a
# 10,000-fault scenario runs to completion. tests/unit/test_robustness.cpp covers the loaders
# in depth; this checks the same through the command line.
# Usage: tests/cli/robustness.sh PATH/TO/hasim   (run from the source root, as ctest does)
set -u
hasim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect_error NAME PATTERN -- COMMAND...: exit 2, stderr matches PATTERN, stdout empty.
expect_error() {
  local name=$1 pattern=$2
  shift 3
  local status
  "$@" >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [ "$status" -ne 2 ] || ! grep -qE -- "$pattern" "$tmp/err" || [ -s "$tmp/out" ]; then
    echo "FAIL: $name: exit $status (want 2), stderr lacks /$pattern/ or stdout is not empty:"
    head -c 600 "$tmp/err" "$tmp/out" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok:   $name"
  fi
}

scenario() {  # scenario FILE JSON-TEXT
  printf '%s' "$2" >"$tmp/$1"
}

head='"name": "r", "duration": "10m"'
scenario truncated.json '{"name": "r", "duration": "10m", "nodes": [{"name": "n1"'
scenario garbage.json "{$head, \"nodes\": 3} trailing"
scenario comma.json "{$head, \"nodes\": 3,}"
scenario empty.json ''
scenario array.json '[1, 2, 3]'
printf '{"name": "r", "duration": "10m", "nodes": 3}\0{"anything": 1}' >"$tmp/nul.json"
printf '{"name": "\xc3\x28", "duration": "10m", "nodes": 3}' >"$tmp/utf8.json"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]" }' \
  >"$tmp/deep.json"
scenario wrongtype.json "{\"name\": \"r\", \"duration\": 10, \"nodes\": 3}"
scenario wrongnodes.json "{$head, \"nodes\": \"three\"}"
scenario wrongfault.json "{$head, \"nodes\": 3, \"faults\": {\"at\": \"1m\"}}"
scenario wronglatency.json "{$head, \"nodes\": 3, \"network\": {\"latency\": [1, 2]}}"
scenario seed.json "{$head, \"nodes\": 3, \"seed\": 18446744073709551616}"
scenario negseed.json "{$head, \"nodes\": 3, \"seed\": -1}"
scenario e400.json "{$head, \"nodes\": 1e400}"
scenario nodes.json "{$head, \"nodes\": 1e308}"
scenario rate.json "{$head, \"nodes\": [{\"name\": \"a\", \"clock\": {\"rate\": 1e300}}]}"
scenario longdur.json '{"name": "r", "duration": "99999999999999h", "nodes": 3}'
scenario expdur.json '{"name": "r", "duration": "1e400s", "nodes": 3}'
scenario limit.json '{"name": "r", "duration": "100001h", "nodes": 3}'
scenario clock.json '{"name": "r", "duration": "10000h", "nodes": [{"name": "a", "clock": {"rate": 1000}}]}'
scenario zero.json '{"name": "r", "duration": "0s", "nodes": 3}'
scenario zerofor.json "{$head, \"nodes\": 3, \"faults\": [{\"at\": \"1m\", \"kind\": \"crash\", \"node\": \"n1\", \"for\": \"0s\"}]}"
scenario process.json "{$head, \"nodes\": [{\"name\": \"cp-1\"}], \"faults\": [{\"at\": \"1m\", \"kind\": \"crash\", \"process\": \"cp-1/kube-scheduler\"}]}"

expect_error "truncated JSON" '\$: the file is not valid JSON: at line 1' -- "$hasim" run "$tmp/truncated.json"
expect_error "trailing garbage" 'not valid JSON' -- "$hasim" run "$tmp/garbage.json"
expect_error "trailing comma" 'no comma after the last item' -- "$hasim" validate "$tmp/comma.json"
expect_error "empty file" 'the file is empty' -- "$hasim" run "$tmp/empty.json"
expect_error "not an object" 'expected the scenario to be a JSON object' -- "$hasim" run "$tmp/array.json"
expect_error "NUL byte" 'contains a NUL byte at line 1, column 45' -- "$hasim" run "$tmp/nul.json"
expect_error "ill-formed UTF-8" 'not valid JSON' -- "$hasim" run "$tmp/utf8.json"
expect_error "100,000 levels of nesting" 'nests deeper than 64 levels' -- "$hasim" run "$tmp/deep.json"
expect_error "nesting in validate" 'nests deeper than 64 levels' -- "$hasim" validate "$tmp/deep.json"
expect_error "nesting in replay" 'nests deeper than 64 levels' -- "$hasim" replay "$tmp/deep.json"
expect_error "directory" 'cannot read the scenario file' -- "$hasim" run "$tmp"
expect_error "wrong type: duration" '\$\.duration: expected a duration .* found number 10' -- "$hasim" run "$tmp/wrongtype.json"
expect_error "wrong type: nodes" '\$\.nodes: expected a node count' -- "$hasim" run "$tmp/wrongnodes.json"
expect_error "wrong type: faults" '\$\.faults: expected an array' -- "$hasim" run "$tmp/wrongfault.json"
expect_error "wrong type: latency" '\$\.network\.latency: expected a distribution' -- "$hasim" run "$tmp/wronglatency.json"
expect_error "seed 2^64" '\$\.seed: expected a whole number from 0 to 18446744073709551615' -- "$hasim" run "$tmp/seed.json"
expect_error "seed -1" '\$\.seed: .*found number -1' -- "$hasim" run "$tmp/negseed.json"
expect_error "number 1e400" 'numbers must fit in a 64-bit floating-point value' -- "$hasim" run "$tmp/e400.json"
expect_error "1e308 nodes" '\$\.nodes: expected a whole number from 1 to 2000' -- "$hasim" run "$tmp/nodes.json"
expect_error "rate 1e300" '\$\.nodes\[0\]\.clock\.rate: expected a rate above 0 and at most 1000' -- "$hasim" run "$tmp/rate.json"
expect_error "duration past 64 bits" '\$\.duration: .*too large' -- "$hasim" run "$tmp/longdur.json"
expect_error "duration 1e400s" '\$\.duration: .*unknown unit' -- "$hasim" run "$tmp/expdur.json"
expect_error "duration past the limit" '\$\.duration: expected a duration of at most 100000h' -- "$hasim" run "$tmp/limit.json"
expect_error "clock past the limit" '\$\.duration: the wall clock of node "a" could read about 10000000h' -- "$hasim" run "$tmp/clock.json"
expect_error "zero duration" '\$\.duration: expected a duration greater than zero' -- "$hasim" run "$tmp/zero.json"
expect_error "zero for" '\$\.faults\[0\]\.for: expected a duration greater than zero' -- "$hasim" run "$tmp/zerofor.json"
expect_error "process not running" '\$\.faults\[0\]\.process: unknown process "kube-scheduler" on node "cp-1"' -- "$hasim" run "$tmp/process.json"

# A replay file with wrong types, and one whose embedded scenario is wrong.
printf '{"replayFormat": "1", "hasimVersion": 1, "seed": -1, "scenario": {"name": "r"}, "expected": []}' \
  >"$tmp/bad.replay.json"
expect_error "replay with wrong types" '\$\.replayFormat: expected a whole number' -- "$hasim" replay "$tmp/bad.replay.json"
expect_error "replay's scenario" '\$\.scenario\.duration: required key' -- "$hasim" replay "$tmp/bad.replay.json"

# 10,000 faults on a 3-node control plane over 10 minutes: loads, runs, exits 0 or 1.
awk 'BEGIN {
  printf "{\"name\": \"many-faults\", \"seed\": 1, \"duration\": \"10m\", "
  printf "\"nodes\": [{\"name\": \"cp-1\"}, {\"name\": \"cp-2\"}, {\"name\": \"cp-3\"}], "
  printf "\"controlPlane\": {\"version\": \"1.31.0\"}, "
  printf "\"properties\": [\"single-leader\", \"eventually-leader:30s\"], \"faults\": ["
  for (i = 0; i < 10000; i++) {
    node = "cp-" (i % 3 + 1); at = "\"at\": \"" (i * 60) "ms\""
    if (i > 0) printf ", "
    k = i % 6
    if (k == 0) printf "{%s, \"kind\": \"pause\", \"node\": \"%s\"}", at, node
    if (k == 1) printf "{%s, \"kind\": \"resume\", \"node\": \"cp-%d\"}", at, (i - 1) % 3 + 1
    if (k == 2) printf "{%s, \"kind\": \"crash\", \"process\": \"%s/kube-controller-manager\", \"for\": \"30ms\"}", at, node
    if (k == 3) printf "{%s, \"kind\": \"partition\", \"isolate\": [\"%s\"], \"for\": \"40ms\"}", at, node
    if (k == 4) printf "{%s, \"kind\": \"clock-step\", \"node\": \"%s\", \"by\": \"%s\"}", at, node, (i % 4 ? "1ms" : "-1ms")
    if (k == 5) printf "{%s, \"kind\": \"apiserver-slow\", \"node\": \"%s\", \"latency\": \"5ms\", \"for\": \"20ms\"}", at, node
  }
  printf "]}"
}' >"$tmp/many.json"
start=$(date +%s)
timeout 120 "$hasim" run "$tmp/many.json" >"$tmp/out" 2>"$tmp/err"
status=$?
elapsed=$(($(date +%s) - start))
if { [ "$status" -eq 0 ] || [ "$status" -eq 1 ]; } && grep -q "^verdict" "$tmp/out"; then
  echo "ok:   10,000 faults run to completion (exit $status, ${elapsed}s)"
else
  echo "FAIL: 10,000 faults: exit $status after ${elapsed}s (want 0 or 1 and a verdict):"
  head -c 600 "$tmp/err" "$tmp/out" | sed 's/^/    /'
  failures=$((failures + 1))
fi
if "$hasim" validate "$tmp/many.json" 2>&1 | grep -q "10000 faults"; then
  echo "ok:   validate counts 10,000 faults"
else
  echo "FAIL: validate counts 10,000 faults"
  failures=$((failures + 1))
fi

if [ "$failures" -gt 0 ]; then echo "$failures robustness check(s) failed"; exit 1; fi
echo "all robustness checks passed"
