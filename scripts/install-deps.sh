#!/usr/bin/env bash
# Installs hasim's build dependencies from Debian 12 packages, only if some are missing.
# Usage: scripts/install-deps.sh [EXTRA-PACKAGE...]   (e.g. scripts/fuzz.sh adds clang)
set -euo pipefail
# dpkg-dev: dpkg-shlibdeps, with which `cpack -G DEB` names the .deb's library dependencies.
# python3: ctest's mutants-apply (mutation/mutate.py --check) and the mutation run.
packages=(g++ cmake ninja-build libboost-graph-dev nlohmann-json3-dev catch2 librapidcheck-dev
  libcli11-dev dpkg-dev python3 "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
