#!/usr/bin/env bash
# Build time as a measured budget (issue 19). Configures the "dev" build (RelWithDebInfo with
# line tables, warnings as errors) in a temporary directory, builds every target from scratch, and prints
# the wall time, the CPU time and the ten most expensive translation units (from Ninja's own
# log, .ninja_log); then touches one model file and rebuilds the tests, and prints the same.
# The targets it checks are the README's: a full build <= 5 min wall, the incremental test
# rebuild <= 30 s, on the 2-core machine CI uses.
#
#   scripts/build-time.sh [--touch FILE] [--jobs N] [--keep DIR]
#
# --touch: the file the incremental step changes (default models/election/leader_elector.cpp);
# --jobs: parallel jobs (default: nproc); --keep: build in DIR and leave it there.
set -euo pipefail
cd "$(dirname "$0")/.."

touch_file=models/election/leader_elector.cpp
jobs=$(nproc)
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --touch) touch_file="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    *) echo "build-time.sh: unknown argument \"$1\"; see the header of $0" >&2; exit 2 ;;
  esac
done
if [ ! -f "$touch_file" ]; then
  echo "build-time.sh: --touch $touch_file: no such file; give a source file of the project" >&2
  exit 2
fi
if [ -n "$keep" ]; then
  dir="$keep"
  if [ -e "$dir" ]; then
    echo "build-time.sh: --keep $dir exists; give a new directory (nothing is overwritten)" >&2
    exit 2
  fi
  mkdir -p "$dir"
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi

# Seconds of wall and CPU (user + system of the build and its children) for one command.
measure() {
  local label="$1"; shift
  local t0 t1 c0 c1
  t0=$(date +%s%N)
  c0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  "$@" >"$dir/step.log" 2>&1 || { cat "$dir/step.log"; exit 1; }
  t1=$(date +%s%N)
  c1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) / 1e9}')
  cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", (b - a) / hz}')
  printf '%-28s wall %7s s   cpu %7s s   (%s jobs)\n' "$label" "$wall" "$cpu" "$jobs"
}

# The ten longest compile steps logged after line $1 of .ninja_log (start and end in ms from
# the start of each ninja run, so a run is told by its lines, not its times).
top_units() {
  awk -F'\t' -v since="$1" 'NR > since && !/^#/ && $4 ~ /\.o$/ {
      t[$4] = ($2 - $1) / 1000 }
    END { for (o in t) printf "%8.1f s  %s\n", t[o], o }' "$dir/.ninja_log" |
    sort -rn | head -10 | sed 's|CMakeFiles/[^/]*\.dir/||; s|\.o$||'
}

units_sum() {
  awk -F'\t' -v since="$1" 'NR > since && !/^#/ && $4 ~ /\.o$/ { s += ($2 - $1) / 1000 }
    END { printf "%.0f", s }' "$dir/.ninja_log"
}

check() {  # label, measured seconds, budget seconds
  awk -v l="$1" -v m="$2" -v b="$3" 'BEGIN {
    printf "  target %-34s %6.1f s <= %4d s: %s\n", l, m, b, (m <= b ? "met" : "NOT MET") }'
}

echo "hasim build time: $(nproc) cores, $(c++ --version | head -1)"
# The "dev" preset (CMakePresets.json), as scripts/build.sh uses it, in a directory of our own.
measure "configure" cmake --preset dev -B "$dir"
measure "full build (every target)" cmake --build "$dir" -j "$jobs" --target all benchmarks
full_wall=$wall
echo "  $(units_sum 0) s in $(awk -F'\t' 'NR > 1 && $4 ~ /\.o$/' "$dir/.ninja_log" | wc -l) translation units; the ten most expensive:"
top_units 0

# Incremental: one model file changes; the tests (and hasim) rebuild.
since=$(wc -l <"$dir/.ninja_log")
sleep 1
touch "$touch_file"
measure "touch $(basename "$touch_file"); tests" cmake --build "$dir" -j "$jobs" --target hasim_tests
incremental_wall=$wall
top_units "$since" | head -3

check "full build of every target" "$full_wall" 300
check "incremental test rebuild" "$incremental_wall" 30
