#!/usr/bin/env bash
# Installs what pmonsim needs on Debian bookworm. Safe to run again: it asks
# apt only when a package is missing.
#
#   setup-debian.sh              building, the test suite and the package check
#                                (cpack, lintian), and the real tools run against
#                                the model
#   setup-debian.sh --waves      the same and the waveform GUI stack (GTKWave with
#                                vcd2fst, Xvfb): what scripts/show-waves and the
#                                suite's screenshot test need
#   setup-debian.sh --only-waves the waveform GUI stack alone (scripts/show-waves
#                                runs this when something is missing)
set -euo pipefail
base=(build-essential cmake pkg-config libsystemc-dev libboost-program-options-dev
      libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libpfm4-dev zlib1g-dev libzstd-dev zstd libcapstone-dev clang
      python3 pcm likwid msr-tools pciutils linux-perf papi-tools
      help2man dpkg-dev file lintian)
base+=(gnuplot-nox)  # pmon-stat --plot draws with gnuplot
base+=(man-db)  # the manual-page tests render the pages with man
base+=(slurm-wlm munge libxml2-utils)  # pmonsim sweep's Slurm test (a private one-node cluster); xmllint
waves=(gtkwave xvfb xauth x11-utils python3)
case "${1:-}" in
  "") packages=("${base[@]}") ;;
  --waves) packages=("${base[@]}" "${waves[@]}") ;;
  --only-waves) packages=("${waves[@]}") ;;
  *) echo "usage: setup-debian.sh [--waves | --only-waves]" >&2; exit 2 ;;
esac
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
