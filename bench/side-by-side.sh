#!/usr/bin/env bash
# Side by side, on this machine, in one go (issue 15): hasim's scheduler on the hold model and
# on the lease pattern (timers reset before they fire), the same loops on a bare
# std::priority_queue, and the same models in SimPy (Debian's python3-simpy3, installed if
# missing). Prints events per second for each and the ratios.
#
#   bench/side-by-side.sh [STEPS]     C++ steps per variant (default 20,000,000; SimPy a tenth)
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-20000000}
if ! [[ "$steps" =~ ^[0-9]+$ ]] || [ "$steps" -lt 10000 ]; then
  echo "usage: bench/side-by-side.sh [STEPS]   (a whole number of at least 10000)" >&2
  exit 2
fi
./scripts/install-deps.sh python3-simpy3
./scripts/build.sh bench_kernel_hold >/dev/null
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# All three engines on one CPU, the first this shell may use: on a virtual machine the CPUs
# need not run at the same speed (on the 2-core box of the README one ran the hold model 30%
# slower than the other), and a ratio of two engines is only fair on the same one.
pin=()
if command -v taskset >/dev/null; then
  cpu=$(taskset -cp $$ | sed 's/.*: //; s/[,-].*//')
  pin=(taskset -c "$cpu")
  echo "all engines pinned to CPU $cpu"
fi
"${pin[@]}" ./build/bench_kernel_hold "$steps" | tee "$out"
# Debian's python3 (where python3-simpy3 installs), not another one first on PATH.
"${pin[@]}" /usr/bin/python3 bench/simpy_hold.py $((steps / 10)) | tee -a "$out"
rate() { awk -v n="$1" '$0 ~ "^" n "  " { for (i = 1; i < NF; ++i) if ($(i + 1) == "M") print $i }' "$out" | head -1; }
echo
printf '%-34s %8s %8s %8s\n' "events/s (millions)" hasim "bare" SimPy
for pair in "hold:bare heap:simpy hold" "reset:bare reset:simpy reset"; do
  IFS=: read -r ours bare simpy <<<"$pair"
  a=$(rate "$ours"); b=$(rate "$bare"); c=$(rate "$simpy")
  printf '%-34s %8s %8s %8s   hasim/bare %.2fx, hasim/SimPy %.1fx\n' "$ours" "$a" "$b" "$c" \
    "$(awk -v a="$a" -v b="$b" 'BEGIN {print a / b}')" "$(awk -v a="$a" -v c="$c" 'BEGIN {print a / c}')"
done
