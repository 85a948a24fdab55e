#!/usr/bin/env bash
# A trace split into several files replays as the whole: pmonsim merges the
# packet files by time (packets of one port and direction take their flit
# slots in that order) and posts event rows apart from packets. The files are
# given in a shuffled order, text and binary mixed.
set -euo pipefail
pmonsim=$1 traces=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pk=$traces/mixed_workload/packets.csv ev=$traces/r2pcie_ring/events.csv
cat "$traces/mixed_workload/program.sh" "$traces/r2pcie_ring/program.sh" > "$work/program.sh"
split_rows() {  # split_rows IN OUT_A OUT_B: data rows alternately, comments and header in both
    awk -v a="$2" -v b="$3" '/^#/ || !seen++ { print > a; print > b; next } { print > ((n++ % 2) ? b : a) }' "$1"
}
split_rows "$pk" "$work/pa.csv" "$work/pb.csv"
split_rows "$ev" "$work/ea.csv" "$work/eb.csv"
[ "$(grep -vc '^#' "$work/pa.csv")" -gt 100 ] && [ "$(grep -vc '^#' "$work/pb.csv")" -gt 100 ] \
    || { echo "FAIL: the packet trace did not split"; exit 1; }
"$pmonsim" convert "$work/pb.csv" "$work/pb.bin"
run() { "$pmonsim" --program "$work/program.sh" --report csv "$@"; }
run --trace "$pk" --trace "$ev" > "$work/whole.csv"
run --trace "$work/eb.csv" --trace "$work/pb.bin" --trace "$work/ea.csv" --trace "$work/pa.csv" > "$work/split.csv"
cmp "$work/whole.csv" "$work/split.csv" || { diff "$work/whole.csv" "$work/split.csv" | head; echo "FAIL: split replay differs"; exit 1; }
grep -q '^0,qpi0,0,' "$work/whole.csv" && grep -q '^0,r2pcie,0,' "$work/whole.csv" \
    || { echo "FAIL: the report lacks the QPI or R2PCIe counters"; exit 1; }
echo "split traces (text and binary, any order) replay as the whole"
