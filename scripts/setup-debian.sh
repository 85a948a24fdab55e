#!/usr/bin/env bash
# Installs what pmonsim needs on Debian bookworm. Safe to run again: it asks
# apt only when a package is missing.
set -euo pipefail
packages=(build-essential cmake pkg-config libsystemc-dev libboost-program-options-dev
          libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libpfm4-dev zlib1g-dev libcapstone-dev clang
          gtkwave xvfb xauth x11-utils python3 pcm likwid msr-tools pciutils linux-perf papi-tools)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update
"${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
