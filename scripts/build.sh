#!/usr/bin/env bash
# Configures and builds pmonsim in ./build (or $PMONSIM_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PMONSIM_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$(nproc)"
