#!/usr/bin/env bash
# Fuzzes scenario and replay parsing (fuzz/fuzz_load.cpp) with libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer for SECONDS (default 60), and exits non-zero on any crash,
# leak, timeout or sanitizer report. Usage: scripts/fuzz.sh [SECONDS]
#
# Builds fuzz_load in ./build-sanitize (scripts/sanitized-build.sh: clang++, installed if
# missing, shared with scripts/test-sanitizers.sh), and fuzzes from a seed corpus of every
# scenarios/**/*.json, replay files written by `hasim run --replay-out` and some malformed
# inputs. What the fuzzer learns is kept in build-sanitize/corpus for the next run; a failing
# input is saved in build-sanitize/artifacts/ (reproduce: build-sanitize/fuzz_load FILE), the
# log in build-sanitize/fuzz.log.
# `hasim` for the replays: $HASIM, else build/hasim, else the one in build-sanitize.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS]   (a whole number of seconds, default 60)" >&2
  exit 2
fi

build=build-sanitize
./scripts/sanitized-build.sh fuzz_load

hasim=${HASIM:-}
if [ -z "$hasim" ]; then
  if [ -x build/hasim ]; then
    hasim=build/hasim
  else
    cmake --build "$build" -j "$(nproc)" --target hasim
    hasim=$build/hasim
  fi
fi

# Seeds: every scenario, replays of a few, and malformed inputs. Rebuilt on every run.
seeds=$build/seeds
rm -rf "$seeds" "$build/artifacts"
mkdir -p "$seeds" "$build/corpus" "$build/artifacts"
find scenarios -name '*.json' ! -name schema.json -print0 |
  while IFS= read -r -d '' file; do cp "$file" "$seeds/$(echo "${file#scenarios/}" | tr / _)"; done
for scenario in scenarios/examples/demo-heartbeat.json scenarios/examples/demo-fast-clock.json \
  scenarios/election/leader-crash.json scenarios/upgrade/lease-upgrade-3.json; do
  name=$(basename "$scenario" .json)
  status=0
  "$hasim" run "$scenario" --replay-out "$seeds/replay-$name.json" --force >/dev/null || status=$?
  if [ "$status" -gt 1 ]; then
    echo "fuzz: hasim run $scenario exited $status while writing a seed replay" >&2
    exit 1
  fi
done
printf '' >"$seeds/bad-empty"
printf '{"name": "x", "duration": "10m", "nodes": [{"name": "n1"' >"$seeds/bad-truncated.json"
printf '{"name": "x", "duration": "10m", "nodes": 3,}' >"$seeds/bad-comma.json"
printf '{"name": "x", "duration": "1e400s", "nodes": 18446744073709551616, "seed": -1}' \
  >"$seeds/bad-numbers.json"
printf '{"name": "x", "duration": "100000h", "nodes": [{"name": "a", "clock": {"offset": "-100000h", "rate": 8}}]}' \
  >"$seeds/limit-clock.json"
printf '{"name": "x", "duration": "10m", "nodes": 3, "faults": [{"at": "1m", "kind": "crash", "process": "n1/heartbeat"}]}' \
  >"$seeds/bad-process.json"
printf '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]' >"$seeds/bad-deep.json"
printf '{"replayFormat": 1, "hasimVersion": "0.1.0", "seed": 1, "scenario": {"name": "x"}, "expected": {}}' \
  >"$seeds/bad-replay.json"

echo "fuzz: $(ls "$seeds" | wc -l) seeds, $(ls "$build/corpus" | wc -l) inputs in $build/corpus;" \
  "fuzzing for ${seconds}s" >&2
# -timeout: one input over 10 s is a hang; fuzz_load bounds each run far below that.
status=0
# The dictionary: fuzz/scenario.dict (units, punctuation, numbers, example names) plus every
# word of the registered systems' scenario format, so a new system needs no edit here.
{ cat fuzz/scenario.dict; "$hasim" list --fuzz-dictionary; } >"$build/scenario.dict"
"$build/fuzz_load" -dict="$build/scenario.dict" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus" "$seeds" 2>"$build/fuzz.log" || status=$?
grep -E '^(#[0-9]+[[:space:]]+DONE|stat::)' "$build/fuzz.log" >&2 || true
if [ "$status" -ne 0 ] || [ -n "$(ls -A "$build/artifacts")" ]; then
  grep -E 'ERROR|runtime error|assertion failed|SUMMARY' "$build/fuzz.log" | head -20 >&2 || true
  echo "fuzz: FAILED (exit $status); full log in $build/fuzz.log; failing inputs:" >&2
  ls "$build"/artifacts/* >&2 2>/dev/null || true
  exit 1
fi
echo "fuzz: no crash, leak, timeout or sanitizer report in ${seconds}s;" \
  "$(ls "$build/corpus" | wc -l) inputs in $build/corpus" >&2
