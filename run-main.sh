#!/usr/bin/env bash
# The main job on built-in defaults: installs what is missing, builds, and runs hasim's
# headline study, `hasim report upgrade-skew`: the probability that a node-by-node
# control-plane upgrade or rollback violates the version-skew policy with lease-based
# election, Coordinated Leader Election and a mixed fleet (10,000 trials per cell).
# Extra arguments go to `hasim report upgrade-skew` (e.g. --trials 1000 --jobs 8).
# Without --out, the report goes to reports/out/upgrade-skew/, or, if an earlier run left
# files there, to the first free reports/out/upgrade-skew-N/ (nothing is overwritten).
set -euo pipefail
cd "$(dirname "$0")"
./scripts/install-deps.sh
./scripts/build.sh hasim  # the study needs only the binary, not the tests
args=("$@")
has_out=false
for arg in "$@"; do
  case "$arg" in --out | --out=*) has_out=true ;; esac
done
if ! $has_out; then
  out=reports/out/upgrade-skew
  n=2
  while [ -e "$out/upgrade-skew.json" ] || [ -e "$out/upgrade-skew.md" ] ||
    [ -e "$out/upgrade-skew.html" ]; do
    out="reports/out/upgrade-skew-$n"
    n=$((n + 1))
  done
  args+=(--out "$out")
fi
exec ./build/hasim report upgrade-skew "${args[@]}"
