#!/usr/bin/env bash
# Installs, builds, and runs every test (ctest: unit, differential, SystemC
# scenario tests one per process, golden output, docs and install checks).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
cd "${PMONSIM_BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)"
