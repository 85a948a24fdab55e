#!/usr/bin/env bash
# Run-length bursts replay as their packets one by one: a trace of bursts
# (pmonsim-gen-trace --burst, binary version 3: each burst one record, placed
# in closed form) gives the same counts, reads and report as the same packets
# in text (one row each), with register accesses in the middle of bursts, two
# traces whose bursts share ports and directions, and counters near the wrap.
set -euo pipefail
pmonsim=$1 gen=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for seed in 1 2; do
    "$gen" --mix DRS=4,SNP=1,NCB=1 --load 1 --burst 60 --packets 40000 --seed $seed -o "$work/t$seed.csv"
    "$gen" --mix DRS=4,SNP=1,NCB=1 --load 1 --burst 60 --packets 40000 --seed $seed -o "$work/t$seed.bin"
done
# The same packets by time (ns; a QCLK is 1 ns at 8 GT/s), in binary: bursts in ps.
for seed in 1 2; do
    awk -F, 'BEGIN { OFS = "," } /^#/ { print; next } !h++ { $1 = "time"; print; next } { print }' \
        "$work/t$seed.csv" > "$work/ps$seed.csv"
    "$pmonsim" convert "$work/ps$seed.csv" "$work/ps$seed.bin"
done
# Version 3, and far smaller than a record a packet.
[ "$(head -c 8 "$work/t1.bin" | tail -c 1 | od -An -tu1 | tr -d ' ')" = 3 ] || fail "not version 3"
size=$(stat -c %s "$work/t1.bin")
[ "$size" -lt 80000 ] || fail "t1.bin has $size bytes for 40000 packets: bursts not found"
cat > "$work/script.sh" <<'S'
wrmsr 0xc00 0x80000000
setpci -s ff:08.2 f4.L=00030103
setpci -s ff:08.6 228.L=00001c00 238.L=00001f80
setpci -s ff:08.2 d8.L=00601802 dc.L=02400600 e0.L=01440101 e4.L=00600038
setpci -s ff:09.2 f4.L=00030103
setpci -s ff:09.2 d8.L=00400701 dc.L=01600700 e0.L=02440401 e4.L=02400201
setpci -s ff:09.2 a0.L=ffff0000 a4.L=0000ffff
setpci -s ff:08.2 f4.L=00030000
setpci -s ff:09.2 f4.L=00030000
wrmsr 0xc00 0x20000000
sleep 0.0000173
wrmsr 0xc00 0x80000000
setpci -s ff:08.2 a0.L a4.L a8.L ac.L b0.L b4.L b8.L bc.L
setpci -s ff:08.2 dc.L=01440600
wrmsr 0xc00 0x20000000
sleep 0.0000291
wrmsr 0xc00 0x80000000
setpci -s ff:09.2 a0.L a4.L a8.L ac.L b0.L b4.L
wrmsr 0xc00 0x20000000
setpci -s ff:09.2 f4.L=00030100
sleep 0.00001
setpci -s ff:09.2 f4.L=00030000
sleep 0.00002
S
run() { "$pmonsim" --script "$work/script.sh" --report csv --report-file "$1" "${@:2}" > "${1%.csv}.out"; }
run "$work/text.csv" --trace "$work/t1.csv" --trace "$work/t2.csv"
run "$work/bin.csv" --trace "$work/t1.bin" --trace "$work/t2.bin"
run "$work/ps.csv" --trace "$work/ps1.bin" --trace "$work/ps2.bin"
run "$work/mixed.csv" --trace "$work/t2.bin" --trace "$work/t1.csv"
run "$work/mixed2.csv" --trace "$work/t2.csv" --trace "$work/t1.bin"
cmp -s "$work/text.out" "$work/bin.out" || { diff "$work/text.out" "$work/bin.out" | head; fail "the script's reads differ"; }
cmp -s "$work/text.csv" "$work/bin.csv" || { diff "$work/text.csv" "$work/bin.csv" | head; fail "the reports differ"; }
cmp -s "$work/text.out" "$work/ps.out" || fail "the script's reads differ (bursts in ps)"
cmp -s "$work/text.csv" "$work/ps.csv" || { diff "$work/text.csv" "$work/ps.csv" | head; fail "the reports differ (bursts in ps)"; }
# Text and binary files together (bursts of one placed between the other's
# rows), in the other order (which decides between equal times of the two).
run "$work/swapped.csv" --trace "$work/t2.csv" --trace "$work/t1.csv"
grep -v ',diagnostic,' "$work/swapped.csv" | cut -d, -f1-8 > "$work/swapped.counts"
cmp -s "$work/swapped.counts" <(grep -v ',diagnostic,' "$work/text.csv" | cut -d, -f1-8) \
    && fail "the order of the files changes nothing: the test would not see a wrong order"
for m in mixed mixed2; do
    grep -v ',diagnostic,' "$work/$m.csv" | cut -d, -f1-8 > "$work/$m.counts"
    cmp -s "$work/$m.counts" "$work/swapped.counts" || { diff "$work/$m.counts" "$work/swapped.counts"; fail "$m: binary and text files together count otherwise"; }
done
awk -F, '$2 == "qpi1" && $3 == 0 && $7 >= 1 { ok = 1 } END { exit !ok }' "$work/text.csv" \
    || fail "the near-wrap counter did not wrap: $(grep '^0,qpi1,0' "$work/text.csv")"
awk -F, '$2 == "qpi0" && $3 == 0 && $6 > 50000 { ok = 1 } END { exit !ok }' "$work/text.csv" || fail "qpi0 counted little"
# Random traces (the seed printed): bursts of random lengths, loads and class
# mixes in three files, binary against text.
base=${PMONSIM_TEST_SEED:-$(( (RANDOM << 15) | RANDOM ))}
echo "random rounds from seed $base"
sed -n '1,10p' "$work/script.sh" > "$work/program.sh"
for round in 1 2 3 4 5; do
    s=$((base + round))
    loads=(0.3 0.7 1) mixes=("DRS=1" "DRS=3,SNP=2,NDR=1" "NCB=2,HOM0=1,DRS=1")
    args=()
    i=0
    for f in a b c; do
        i=$((i + 1))
        g=("$gen" --mix "${mixes[$(( (s + i) % 3 ))]}" --load "${loads[$(( (s / 3 + i) % 3 ))]}"
           --burst $((2 + (s * i) % 150)) --packets $((2000 + (s * i) % 5000)) --seed $((4 * s + i)))
        "${g[@]}" -o "$work/r$f.csv"
        "${g[@]}" -o "$work/r$f.bin"
    done
    "$pmonsim" --program "$work/program.sh" --report csv --trace "$work/ra.csv" --trace "$work/rb.csv" \
        --trace "$work/rc.csv" > "$work/rt.csv"
    "$pmonsim" --program "$work/program.sh" --report csv --trace "$work/ra.bin" --trace "$work/rb.bin" \
        --trace "$work/rc.bin" > "$work/rbin.csv"
    cmp -s "$work/rt.csv" "$work/rbin.csv" || { diff "$work/rt.csv" "$work/rbin.csv" | head; fail "seed $s: binary bursts count otherwise than text"; }
done
echo "bursts replay as their packets: reads, reports and counts equal"

