#!/usr/bin/env bash
# The main job on built-in defaults: installs what is missing, builds, runs hasim's
# built-in scenario (for now the heartbeat demo). Extra arguments go to `hasim run`.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/install-deps.sh
./scripts/build.sh
exec ./build/hasim run "$@"
