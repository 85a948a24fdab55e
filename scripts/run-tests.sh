#!/usr/bin/env bash
# Installs, builds, and runs every test (ctest: unit, differential, SystemC
# scenario tests one per process, golden output, docs, install and package
# checks). The suite includes a GTKWave screenshot, so this one also installs
# the waveform GUI stack (setup-debian.sh --waves).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh --waves
bash scripts/build.sh
cd "${PMONSIM_BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)"
