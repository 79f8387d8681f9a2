#!/usr/bin/env bash
# Rewrites every scenario's golden output (scenarios/**/NAME.golden) from what the current
# build produces, like etcd-io/raft's datadriven -rewrite. Review `git diff scenarios/` after:
# each changed line is a behaviour change that the commit must explain.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh hasim_tests
HASIM_REWRITE_GOLDEN=1 ./build/hasim_tests "[golden]"
git status --short -- 'scenarios/*.golden' 'scenarios/**/*.golden'
