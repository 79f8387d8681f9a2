#!/usr/bin/env bash
# Runs etcd-io/raft's own datadriven transcripts (41 files: 28 interaction, 9 confchange,
# 4 quorum; read from shared/conformance beside the checkout, never copied into the project)
# and the project's raft transcripts (tests/raft/) through `hasim raft transcript`, and prints
# how many pass byte for byte. Exits 1 if any fails (with its diff), 2 if the shared vectors
# are missing.
#
#   scripts/raft-transcripts.sh [HASIM]     (default: build/hasim)
#
# No upstream file is skipped: a file that could not pass would be listed here, with why.
set -euo pipefail
cd "$(dirname "$0")/.."
hasim=${1:-build/hasim}
shared=../shared/conformance/etcd-io-raft
if [ ! -d "$shared/testdata" ]; then
  echo "raft-transcripts: $shared not found (the conformance vectors live beside the checkout)" >&2
  exit 2
fi
upstream=("$shared"/testdata/*.txt "$shared"/confchange/testdata/*.txt "$shared"/quorum/testdata/*.txt)
# Prints the summary line (and any failure with its diff); returns hasim's exit status.
run() {
  local status=0 out
  out=$("$hasim" raft transcript "$@") || status=$?
  printf '%s\n' "$out" | grep -vE '^PASS '
  return $status
}
echo "upstream (etcd-io/raft): ${#upstream[@]} files"
run "${upstream[@]}"
echo "project (tests/raft):"
run tests/raft/*.txt
