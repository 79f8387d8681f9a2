#!/usr/bin/env bash
# Smoke test of the installed hasim, reusing an existing build (no second build): installs
# BUILD (default ./build) into a temporary prefix, moves that prefix (an install must not
# depend on where it was first put), runs the installed hasim from another directory, and
# checks it reads its scenarios from the install, not from this source tree. Then packages
# the same build as a .deb with cpack and checks the package's contents and dependencies.
# Usage: scripts/install-smoke.sh [BUILD-DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset HASIM_DATA_DIR

cmake --install "$build" --prefix "$work/first" >/dev/null
mv "$work/first" "$work/prefix"
hasim=$work/prefix/bin/hasim
data=$work/prefix/share/hasim/scenarios
mkdir "$work/cwd"
cd "$work/cwd"

check() {  # check NAME EXPECTED-EXIT PATTERN -- COMMAND...
  local name=$1 code=$2 pattern=$3 output status
  shift 4
  status=0
  output=$("$@" 2>&1) || status=$?
  if [ "$status" -ne "$code" ] || ! grep -qE -- "$pattern" <<<"$output"; then
    echo "install-smoke: FAIL: $name: exit $status (want $code), output lacks /$pattern/:" >&2
    sed 's/^/    /' <<<"$output" | head -20 >&2
    exit 1
  fi
  echo "install-smoke: ok: $name"
}

[ -f "$data/schema.json" ] || { echo "install-smoke: FAIL: no $data/schema.json" >&2; exit 1; }
check "list reads the installed scenarios" 0 "files are in $data/" -- "$hasim" list
check "list names a scenario" 0 "^  election/leader-crash$" -- "$hasim" list
check "run NAME" 0 "verdict +all properties held" -- "$hasim" run leader-crash
check "run FOLDER/NAME" 1 "VIOLATED" -- "$hasim" run examples/demo-fast-clock
check "unknown NAME" 2 "close names: election/leader-crash" -- "$hasim" run leadr-crash
check "report failover" 0 "failover" -- "$hasim" report failover --trials 5 --out fo
check "report upgrade-skew" 0 "upgrade" -- "$hasim" report upgrade-skew --trials 5 --out us
check "check" 0 "no violation in 3 runs" -- "$hasim" check --runs 3 --out check

# The .deb, from the same build.
start=$(date +%s)
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; exit 1; }
deb=$(ls "$work"/deb/hasim_*.deb)
echo "install-smoke: cpack made $(basename "$deb") in $(($(date +%s) - start)) s"
check "deb holds hasim and its schema" 0 "usr/share/hasim/scenarios/schema.json" -- \
  dpkg-deb -c "$deb"
check "deb holds /usr/bin/hasim" 0 "usr/bin/hasim$" -- dpkg-deb -c "$deb"
check "deb depends on libstdc++" 0 "Depends: .*libstdc\+\+6" -- dpkg-deb -I "$deb"
echo "install-smoke: all passed"
