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

# A GTKWave that cannot open the fresh Xvfb's display (seen once in a loaded
# CI run) gets another server: here one that fails so the first time.
mkdir "$work/shim"
real_gtkwave=$(command -v gtkwave)
cat > "$work/shim/gtkwave" <<SHIM
#!/bin/bash
if [ ! -e "$work/shim/failed" ]; then
  touch "$work/shim/failed"
  echo "Could not initialize GTK!  Is DISPLAY env var/xhost set?"
  exit 1
fi
exec "$real_gtkwave" "\$@"
SHIM
chmod +x "$work/shim/gtkwave"
rm "$work/w.png"
PATH=$work/shim:$PATH bash "$root/scripts/show-waves" "$work/w.vcd" "$work/w.png" 2> "$work/err"
[ -e "$work/shim/failed" ] || { echo "FAIL: the shim was not used"; exit 1; }
grep -q 'a new server (attempt 2 of 3)' "$work/err" || { cat "$work/err"; echo "FAIL: no second server"; exit 1; }
[ "$(stat -c %s "$work/w.png")" -gt 20000 ] || { echo "FAIL: no screenshot after the second server"; exit 1; }
echo "second server OK"
