#!/usr/bin/env bash
# The mutation run (issue 18): plants each mutant of mutation/mutants.json (a small, plausible
# bug: file, exact original text, replacement, one sentence on the bug) in a scratch worktree,
# one at a time, rebuilds incrementally and runs what users run: `hasim check` over
# scenarios/check/*.json, `hasim run` on every scenario with a golden output, the studies on
# 200 trials per cell, then the unit tests. Prints the kill matrix and the score: mutants
# killed by a property violation (check, a run's verdict, or a study cell) / all mutants.
#
#   scripts/mutation.sh [--only NAME[,NAME]] [--list] [--check] [--keep] [--quick] [--out DIR]
#
# --only: just these mutants; --list: print the mutants and exit; --check: only check that
# every mutant's original text occurs once in the working tree (ctest runs it); --keep: keep
# the scratch worktree and its build (.mutation/, gitignored) so the next run rebuilds
# incrementally (without it .mutation/ is removed at the end); --quick (CI): no studies, 100 check runs
# instead of 500, no unit tests, each mutant judged only until its first kill; --out: where
# matrix.txt/matrix.json and each run's files go
# (default reports/out/mutation/).
#
# Exit codes: 0 every mutant was killed by a property; 1 some mutant was not (survived, or
# only the golden trace hash or the unit tests noticed it); 2 an error: a mutant whose
# original text does not occur exactly once at HEAD (nothing runs), a mutant that does not
# build, a baseline that does not match its golden files, or bad usage.
#
# Run it under `nice` on a shared machine; the full list takes long (see README, "Mutation
# score").
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 mutation/mutate.py "$@"
