#!/usr/bin/env bash
# Installs, builds, and runs pmonsim's built-in example scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
"${PMONSIM_BUILD_DIR:-build}/testbench/pmonsim" "$@"
