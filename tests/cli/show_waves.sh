#!/usr/bin/env bash
# scripts/show-waves opens a pmonsim dump in GTKWave under Xvfb and saves a
# screenshot: check that a PNG of a real window comes out.
set -euo pipefail
pmonsim=$1 root=$2
# The GUI stack comes with `scripts/setup-debian.sh --waves` (run-tests.sh, CI);
# without it the test skips rather than have show-waves call apt-get.
for tool in vcd2fst fst2vcd gtkwave xvfb-run xwininfo python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing (bash scripts/setup-debian.sh --waves)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ex=$root/traces/drs_data_transfer
"$pmonsim" --trace "$ex/packets.csv" --program "$ex/program.sh" --vcd "$work/w.vcd" \
           --vcd-signals 'socket0.qpi0.*' --report none
bash "$root/scripts/show-waves" "$work/w.vcd" "$work/w.png"
[ "$(head -c 8 "$work/w.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "FAIL: not a PNG"; exit 1; }
size=$(stat -c %s "$work/w.png")
[ "$size" -gt 20000 ] || { echo "FAIL: a $size-byte PNG is no GTKWave window"; exit 1; }
echo "screenshot OK ($size bytes)"
