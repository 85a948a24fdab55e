#!/usr/bin/env bash
# The same example replayed as text, as binary (pmonsim convert), gzipped and
# from stdin gives the same report; binary -> text -> binary is byte-identical.
set -euo pipefail
pmonsim=$1 ex=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { "$pmonsim" --program "$ex/program.sh" "$@"; }
run --trace "$ex/packets.csv" > "$work/text.txt"
"$pmonsim" convert "$ex/packets.csv" "$work/p.bin"
run --trace "$work/p.bin" > "$work/bin.txt"
gzip -c "$ex/packets.csv" > "$work/p.csv.gz"
run --trace "$work/p.csv.gz" > "$work/gz.txt"
gzip -c "$work/p.bin" | run --trace - > "$work/bingz.txt"
for f in bin gz bingz; do cmp "$work/text.txt" "$work/$f.txt" || { echo "FAIL: $f report differs"; exit 1; }; done
"$pmonsim" convert "$work/p.bin" "$work/back.csv"
"$pmonsim" convert "$work/back.csv" "$work/again.bin"
cmp "$work/p.bin" "$work/again.bin" || { echo "FAIL: binary -> text -> binary changed the bytes"; exit 1; }
# A bad input leaves no output file and exits 2.
printf 'cycle,port,dir,mc\n1,0,sideways,DRS\n' > "$work/bad.csv"
if "$pmonsim" convert "$work/bad.csv" "$work/bad.bin" 2> "$work/err"; then echo "FAIL: bad trace converted"; exit 1; fi
grep -q "bad.csv:2:3: column 'dir'" "$work/err" || { echo "FAIL: message: $(cat "$work/err")"; exit 1; }
[ ! -e "$work/bad.bin" ] || { echo "FAIL: partial output left"; exit 1; }
echo "text, binary, gzip and stdin replay alike; conversion round-trips"
