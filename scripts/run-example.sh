#!/usr/bin/env bash
# Installs, builds, and runs pmonsim (by default on the bundled example in
# traces/drs_data_transfer; any arguments are passed to pmonsim instead).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
if [ $# -eq 0 ]; then  # the bundled example: a DRS/NCB data transfer on QPI port 0
  set -- --trace traces/drs_data_transfer/packets.csv --program traces/drs_data_transfer/program.sh
fi
"${PMONSIM_BUILD_DIR:-build}/testbench/pmonsim" "$@"
