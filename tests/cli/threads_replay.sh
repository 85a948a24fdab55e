#!/usr/bin/env bash
# Parallel replay (--threads N) counts exactly what one thread counts: the
# report, the script's reads and the waveforms are the same bytes for 1 to 6
# threads, on two sockets of three QPI ports with random traffic (seeds
# printed), bursts (binary version 3), event rows on the ports and on the
# UBox and R2PCIe boxes (which other threads own), register accesses in the
# middle of the traffic, and ov_en counters near the wrap whose overflow
# messages freeze every box; a bad row late in a trace gives the same error
# and status; pmon-stat's interval counts on the model are the same too; the
# default (auto) gives the same report; and --threads outside 1..64 is
# refused.
set -euo pipefail
pmonsim=$1 gen=$2 pmon_stat=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
machine=(--cpu ivb-ep --sockets 2 --qpi-ports 3)

# Programs every port of both sockets (buses 7f and ff): flit classes, a
# threshold, CTO_COUNT with a filter, the L1 power cycles of the event rows,
# and on ports 0 and 1 (whose overflow messages the UBox takes) counter 0
# with ov_en, preloaded `$1` below the 48-bit wrap.
program() {
    local near=$1
    echo "wrmsr 0xc00 0x80000000"
    for bus in 7f ff; do
        for dev in 08 09 18; do
            echo "setpci -s $bus:$dev.2 f4.L=00030103"
            echo "setpci -s $bus:$dev.6 228.L=00001c00 238.L=00001f80"
            echo "setpci -s $bus:$dev.2 d8.L=00700802 dc.L=02400600 e0.L=00400012 e4.L=00600038"
            [ "$dev" = 18 ] && continue
            printf 'setpci -s %s:%s.2 a0.L=%08x a4.L=0000ffff\n' $bus $dev $(( 0x100000000 - near ))
        done
    done
    for bus in 7f ff; do  # R2PCIe: RING_AD_USED.CW, and the same with edge detection
        echo "setpci -s $bus:13.1 f4.L=00030103"
        echo "setpci -s $bus:13.1 d8.L=00400307 dc.L=01440307"
    done
    echo "wrmsr 0xc10 0x00400044"  # socket 0's UBox: LOCK_CYCLES
    for bus in 7f ff; do
        for dev in 08 09 18; do echo "setpci -s $bus:$dev.2 f4.L=00030000"; done
        echo "setpci -s $bus:13.1 f4.L=00030000"
    done
    echo "wrmsr 0xc00 0x20000000"
}
# A script: the program, then reads and writes while the traffic flows.
script() {
    program "$1"
    echo "sleep 0.0000173"
    echo "setpci -s 7f:09.2 a0.L a4.L a8.L ac.L"
    echo "setpci -s ff:18.2 dc.L=00400700"
    echo "rdmsr -p 16 -0 0xc01"
    echo "sleep 0.0000291"
    echo "setpci -s ff:08.2 a0.L a4.L b8.L bc.L"
    echo "wrmsr 0xc00 0x20000000"
    echo "sleep 0.00004"
}

base=${PMONSIM_TEST_SEED:-$(( (RANDOM << 15) | RANDOM ))}
echo "random traces from seed $base"
for round in 1 2 3; do
    s=$((base + round))
    # (Long enough for several feeds, and for a member's queue to fill.)
    "$gen" --sockets 2 --ports 3 --load 0.$((6 + round)) --packets 400000 --seed $s -o "$work/a.csv"
    "$gen" --sockets 2 --ports 3 --load 0.5 --burst $((5 + round * 7)) --packets 40000 --seed $((s + 100)) \
        -o "$work/b.bin"
    # Event rows on every port: L1 power cycles in runs.
    awk -v seed=$s 'BEGIN { srand(seed); print "cycle,socket,box,event,count,repeat"
        for (c = 0; c < 200000; c += 1 + int(rand() * 400))
            printf "%d,%d,qpi%d,L1_POWER_CYCLES,1,%d\n", c, int(rand() * 2), int(rand() * 3), 1 + int(rand() * 300) }' \
        > "$work/e.csv"
    # UBox and R2PCIe rows of both sockets (UCLK cycles: a file of their own).
    awk -v seed=$s 'BEGIN { srand(seed + 1); print "cycle,socket,box,event,umask,count,repeat"
        for (c = 0; c < 100000; c += 1 + int(rand() * 200))
            if (rand() < 0.5) printf "%d,%d,r2pcie,RING_AD_USED,CW_VR0_EVEN,1,%d\n", c, int(rand() * 2), 1 + int(rand() * 150)
            else printf "%d,%d,ubox,LOCK_CYCLES,,1,%d\n", c, int(rand() * 2), 1 + int(rand() * 150) }' \
        > "$work/u.csv"
    program $(( 2000 + round * 3000 )) > "$work/program.sh"
    script $(( 2000 + round * 3000 )) > "$work/script.sh"
    for t in 1 2 3 4 6; do
        "$pmonsim" "${machine[@]}" --threads $t --trace "$work/a.csv" --trace "$work/b.bin" --trace "$work/e.csv" --trace "$work/u.csv" \
            --program "$work/program.sh" --report csv --report-file "$work/p$t.csv"
        "$pmonsim" "${machine[@]}" --threads $t --trace "$work/a.csv" --trace "$work/b.bin" --trace "$work/e.csv" --trace "$work/u.csv" \
            --script "$work/script.sh" --report csv --report-file "$work/s$t.csv" > "$work/s$t.out"
        if [ $t != 1 ]; then
            cmp -s "$work/p1.csv" "$work/p$t.csv" || { diff "$work/p1.csv" "$work/p$t.csv" | head; fail "round $round: --program report, $t threads"; }
            cmp -s "$work/s1.csv" "$work/s$t.csv" || { diff "$work/s1.csv" "$work/s$t.csv" | head; fail "round $round: --script report, $t threads"; }
            cmp -s "$work/s1.out" "$work/s$t.out" || { diff "$work/s1.out" "$work/s$t.out" | head; fail "round $round: the script's reads, $t threads"; }
        fi
    done
    # Binary traces: the default (a thread per core, with 2 or more cores)
    # gives the same report.
    for f in a e u; do "$pmonsim" convert "${machine[@]}" "$work/$f.csv" "$work/$f-c.bin" > /dev/null; done
    "$pmonsim" "${machine[@]}" --trace "$work/a-c.bin" --trace "$work/b.bin" --trace "$work/e-c.bin" \
        --trace "$work/u-c.bin" --program "$work/program.sh" --report csv --report-file "$work/pauto.csv"
    cmp -s "$work/p1.csv" "$work/pauto.csv" || { diff "$work/p1.csv" "$work/pauto.csv" | head; fail "round $round: the default threads, binary traces"; }
    # The runs did what the test is about: every port counted, an overflow
    # message froze the boxes, and the event rows counted.
    for sock in 0 1; do
        for q in 0 1 2; do
            awk -F, -v s=$sock -v b=qpi$q '$1 == s && $2 == b && $3 == 1 && $6 > 1000 { ok = 1 } END { exit !ok }' \
                "$work/p1.csv" || fail "round $round: socket $sock qpi$q counted little: $(grep "^$sock,qpi$q," "$work/p1.csv" | head -3)"
        done
    done
    # (Columns: socket, box, counter, ..., value 6, overflows 7, ..., global_freeze 10.)
    awk -F, '$2 ~ /^qpi[01]$/ && $3 == 0 && $7 >= 1 && $10 == 1 { ok = 1 } END { exit !ok }' "$work/p1.csv" \
        || fail "round $round: no overflow message froze the boxes"
    awk -F, '$2 ~ /^qpi/ && $5 == "L1_POWER_CYCLES" && $6 > 0 { ok = 1 } END { exit !ok }' "$work/p1.csv" \
        || fail "round $round: the event rows counted nothing"
    for sock in 0 1; do
        awk -F, -v s=$sock '$1 == s && $2 == "r2pcie" && $3 == 0 && $6 > 100 { ok = 1 } END { exit !ok }' "$work/p1.csv" \
            || fail "round $round: socket $sock's R2PCIe counted little"
    done
    awk -F, '$1 == 0 && $2 == "ubox" && $3 == 0 && $6 > 100 { ok = 1 } END { exit !ok }' "$work/p1.csv" \
        || fail "round $round: the UBox counted little"
done

# Waveforms: the same dump (it has no date line), byte for byte.
"$gen" --sockets 2 --ports 3 --load 0.8 --packets 100000 --seed $base -o "$work/w.csv"
for t in 1 3; do
    "$pmonsim" "${machine[@]}" --threads $t --trace "$work/w.csv" --program "$work/program.sh" --report none \
        --vcd "$work/w$t.vcd" --vcd-signals 'socket*.qpi*' 2> /dev/null
done
[ "$(wc -c < "$work/w1.vcd")" -gt 100000 ] || fail "the waveforms are nearly empty"
cmp -s "$work/w1.vcd" "$work/w3.vcd" || fail "the waveforms differ with 3 threads"

# A bad row late in a trace: the same message and status, and no report.
{ head -n 300000 "$work/a.csv"; echo "1,0,0,rx,DRS,0,,99"; tail -n +300001 "$work/a.csv"; } > "$work/bad.csv"
for t in 1 2; do
    set +e
    "$pmonsim" "${machine[@]}" --threads $t --trace "$work/bad.csv" --program "$work/program.sh" --report csv \
        > "$work/bad$t.out" 2> "$work/bad$t.err"
    echo $? > "$work/bad$t.rc"
    set -e
done
[ "$(cat "$work/bad1.rc")" = 2 ] || fail "the bad row: status $(cat "$work/bad1.rc"), not 2: $(cat "$work/bad1.err")"
grep -q 'bad.csv:300001' "$work/bad1.err" || fail "the bad row's error does not name its line: $(cat "$work/bad1.err")"
cmp -s "$work/bad1.err" "$work/bad2.err" || fail "the bad row's error differs with 2 threads: $(cat "$work/bad2.err")"
cmp -s "$work/bad1.rc" "$work/bad2.rc" || fail "the bad row's status differs with 2 threads"
[ ! -s "$work/bad2.out" ] || fail "a report after a bad row"

# A bad binary event row of an R2PCIe box: the threads that do not own the
# box skim its rows (trace_reader::keep_only), its owner checks it whole, and
# the error and status are one thread's; also when the run ends before the
# row, and the rest of the trace is read after it. (Row k, 0-based, of the
# last round's UBox/R2PCIe rows, after the file's header; its event code is
# byte 20 of its 24.)
rows=$(( $(wc -l < "$work/u.csv") - 1 ))
hdr=$(( $(stat -c %s "$work/u-c.bin") - 24 * rows ))
[ "$hdr" -ge 16 ] && [ "$hdr" -lt 64 ] || fail "u-c.bin: not fixed 24-byte rows after a header ($hdr bytes left)"
k=$(awk -F, -v n=$rows 'NR > 1 && NR - 2 > n / 2 && $2 == 1 && $3 == "r2pcie" { print NR - 2; exit }' "$work/u.csv")
late=$(awk -F, -v k=$k 'NR == k + 2 { print $1 }' "$work/u.csv")
cp "$work/u-c.bin" "$work/ubad.bin"
printf '\x99' | dd of="$work/ubad.bin" bs=1 seek=$(( hdr + 24 * k + 20 )) conv=notrunc status=none
# The same row with its cycle past the model's range too: a thread that
# skims it stops there for its cycle, one that checks it whole for its event
# (checked first), and the replay reports the latter, as one thread does.
cp "$work/ubad.bin" "$work/ubad2.bin"
printf '\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f' | dd of="$work/ubad2.bin" bs=1 seek=$(( hdr + 24 * k )) conv=notrunc status=none
for bad in ubad ubad2; do
for cycles in "" "--cycles $(( late / 4 ))"; do
    for t in 1 2 3 4; do
        set +e
        # shellcheck disable=SC2086
        "$pmonsim" "${machine[@]}" --threads $t --trace "$work/a-c.bin" --trace "$work/$bad.bin" $cycles \
            --program "$work/program.sh" --report csv > "$work/ebad$t.out" 2> "$work/ebad$t.err"
        echo $? > "$work/ebad$t.rc"
        set -e
    done
    [ "$(cat "$work/ebad1.rc")" = 2 ] || fail "the bad event row ($cycles): status $(cat "$work/ebad1.rc"), not 2: $(cat "$work/ebad1.err")"
    grep -q "$bad.bin: record $((k + 1)): column 'event'" "$work/ebad1.err" \
        || fail "the bad event row ($bad $cycles): $(cat "$work/ebad1.err")"
    for t in 2 3 4; do
        cmp -s "$work/ebad1.err" "$work/ebad$t.err" || fail "the bad event row ($bad $cycles), $t threads: $(cat "$work/ebad$t.err")"
        cmp -s "$work/ebad1.rc" "$work/ebad$t.rc" || fail "the bad event row ($bad $cycles): the status with $t threads"
        [ ! -s "$work/ebad$t.out" ] || fail "the bad event row ($bad $cycles): a report with $t threads"
    done
done
done

# pmon-stat on the model: interval counts (read every 3 us, within feeds) of both sockets' ports.
for t in 1 2 4; do
    "$pmon_stat" --target sim "${machine[@]}" --threads $t --trace "$work/w.csv" -x, -I 3us \
        -e qpi0/RxL_FLITS_G1.DRS_DATA,qpi1/TxL_FLITS_G0.DATA,qpi2/RxL_FLITS_G0.IDLE > "$work/stat$t.out"
done
[ "$(grep -c 'qpi2/RxL_FLITS_G0.IDLE' "$work/stat1.out")" -ge 14 ] || fail "pmon-stat printed few intervals: $(head -3 "$work/stat1.out")"
for t in 2 4; do
    cmp -s "$work/stat1.out" "$work/stat$t.out" || { diff "$work/stat1.out" "$work/stat$t.out" | head; fail "pmon-stat with $t threads"; }
done

# --threads outside 1..64.
for t in 0 65 x; do
    set +e
    "$pmonsim" --threads $t --trace "$work/w.csv" > /dev/null 2> "$work/t.err"
    rc=$?
    "$pmon_stat" --target sim --threads $t --trace "$work/w.csv" -e qpi0/RxL_FLITS_G0.IDLE > /dev/null 2> "$work/s.err"
    src=$?
    set -e
    [ $rc = 2 ] || fail "--threads $t: status $rc"
    grep -q 'threads' "$work/t.err" || fail "--threads $t: $(cat "$work/t.err")"
    [ $src != 0 ] || fail "pmon-stat --threads $t: status 0"
    grep -q 'threads' "$work/s.err" || fail "pmon-stat --threads $t: $(cat "$work/s.err")"
done
echo "ok"
