#!/usr/bin/env bash
# Traces checked as they are replayed (the default when nothing of a run shows
# before its report) give what checking every trace first (--check-first, and
# the behaviour with --script or --vcd) gives: the same error message, exit
# status 2, and no output at all, not even a --program's echo; on good traces
# the same output. The bad rows lie far into files of several reading
# batches, so the replay has begun when it meets them.
set -euo pipefail
pmonsim=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 30000 received DRS packets on two ports, one per 3 QCLK, and an event trace.
packets() { awk 'BEGIN { print "cycle,port,dir,mc"; for (i = 0; i < 30000; ++i) print 3 * i "," i % 2 ",rx,DRS" }'; }
events() { awk 'BEGIN { print "cycle,box,event,umask,count"; for (i = 0; i < 20000; ++i) print 5 * i ",r2pcie,RING_AD_USED,CW_VR0_EVEN,1" }'; }
packets > "$work/good.csv"
events > "$work/events.csv"
cat > "$work/program.sh" <<'EOF'
echo programmed
setpci -s ff:08.2 f4.L=00030000
setpci -s ff:08.2 d8.L=00601802
setpci -s ff:13.1 f4.L=00030000
setpci -s ff:13.1 d8.L=00403307
EOF
"$pmonsim" convert --binary-version 1 "$work/good.csv" "$work/good.bin"  # (fixed records: patched below)

# A row near the end out of time order; a bad value; a binary record with port 9.
packets | awk 'NR == 29000 { $0 = "5,0,rx,DRS" } { print }' > "$work/late_order.csv"
packets | awk 'NR == 20000 { $0 = "59997,0,rxx,DRS" } { print }' > "$work/late_value.csv"
cp "$work/good.bin" "$work/late_port.bin"
printf '\x09' | dd of="$work/late_port.bin" bs=1 seek=$((16 + 24 * 24999 + 11)) conv=notrunc status=none

# expect_same NAME ARGS...: both ways of checking give the same exit status,
# stdout and stderr; prints the status.
expect_same() {
    local name=$1; shift
    set +e
    "$pmonsim" --program "$work/program.sh" --report csv "$@" > "$work/$name.out" 2> "$work/$name.err"
    local a=$?
    "$pmonsim" --program "$work/program.sh" --report csv --check-first "$@" > "$work/$name.first.out" 2> "$work/$name.first.err"
    local b=$?
    set -e
    [ "$a" = "$b" ] || fail "$name: exit $a while replaying, $b checking first"
    cmp -s "$work/$name.out" "$work/$name.first.out" || fail "$name: stdout differs: $(diff "$work/$name.out" "$work/$name.first.out" | head -5)"
    cmp -s "$work/$name.err" "$work/$name.first.err" || fail "$name: stderr differs: $(cat "$work/$name.err") / $(cat "$work/$name.first.err")"
    echo "$a"
}
expect_bad() {  # expect_bad NAME MESSAGE_REGEX ARGS...
    local name=$1 message=$2; shift 2
    local rc
    rc=$(expect_same "$name" "$@")
    [ "$rc" = 2 ] || fail "$name: exit $rc, expected 2"
    [ ! -s "$work/$name.out" ] || fail "$name: printed $(head -c 200 "$work/$name.out")"
    grep -Eq "$message" "$work/$name.err" || fail "$name: stderr $(cat "$work/$name.err") does not match $message"
}

# Good traces: the program's echo, then the report, the same either way.
rc=$(expect_same good --trace "$work/good.bin" --trace "$work/events.csv")
[ "$rc" = 0 ] || fail "good: exit $rc"
head -1 "$work/good.out" | grep -qx programmed || fail "good: the program's echo does not come first"
grep -q '^0,qpi0,0,0x00601802,RxL_FLITS_G1.DRS,135000,' "$work/good.out" || fail "good: qpi0 counter: $(grep qpi0 "$work/good.out" | head -1)"
grep -q '^0,r2pcie,0,0x00403307,RING_AD_USED.CW,20000,' "$work/good.out" || fail "good: r2pcie counter"
# 15000 packets of 9 flits on port 0; the run ends with the last packet's last flit (port 1,
# from cycle 89997: slots 179994-180002), as when the last record's time is known first.
grep -q ',180004,90002,,,,,$' "$work/good.out" || fail "good: run length $(grep qpi0 "$work/good.out" | head -1)"

expect_bad order "late_order.csv:29000:1: .*time order" --trace "$work/late_order.csv" --trace "$work/events.csv"
expect_bad value "late_value.csv:20000:3: column 'dir': 'rxx'" --trace "$work/events.csv" --trace "$work/late_value.csv"
expect_bad binary "late_port.bin: record 25000: .*port" --trace "$work/late_port.bin" --trace "$work/events.csv"
gzip -c "$work/late_order.csv" > "$work/late_order.csv.gz"
expect_bad gzip "late_order.csv.gz:29000:1: " --trace "$work/events.csv" --trace "$work/late_order.csv.gz"
# Two bad files: the first file's error, though the second file's comes earlier in time.
expect_bad two "late_order.csv:29000:1: " --trace "$work/late_order.csv" --trace "$work/late_port.bin"
expect_bad two_swapped "late_port.bin: record 25000: " --trace "$work/late_port.bin" --trace "$work/late_order.csv"
# A run that --cycles ends long before the bad row still checks the rest.
expect_bad short "late_value.csv:20000:3: " --trace "$work/late_value.csv" --cycles 100
# A file that cannot be opened after a bad one: the bad one's error.
expect_bad missing "late_value.csv:20000:3: " --trace "$work/late_value.csv" --trace "$work/nonexistent.csv"
# Text files of 4 MiB and more are parsed in 512 KiB chunks on two threads
# (trace_chunks.h): the same counts as their binary copy, and the errors one
# pass gives, also for rows out of order exactly where a chunk starts.
big() { awk 'BEGIN { print "cycle,port,dir,mc"; for (i = 0; i < 400000; ++i) print 3 * i "," i % 2 ",rx,DRS" }'; }
big > "$work/big.csv"
[ "$(stat -c %s "$work/big.csv")" -ge 4194304 ] || fail "big.csv is smaller than 4 MiB"
"$pmonsim" convert "$work/big.csv" "$work/big.bin"
"$pmonsim" --program "$work/program.sh" --report csv --trace "$work/big.bin" --trace "$work/events.csv" > "$work/big_bin.out"
rc=$(expect_same big --trace "$work/big.csv" --trace "$work/events.csv")
[ "$rc" = 0 ] || fail "big: exit $rc"
cmp -s "$work/big.out" "$work/big_bin.out" || fail "big: text and binary differ: $(diff "$work/big.out" "$work/big_bin.out" | head -5)"
grep -q '^0,qpi0,0,0x00601802,RxL_FLITS_G1.DRS,1800000,' "$work/big.out" || fail "big: qpi0 counter: $(grep qpi0 "$work/big.out" | head -1)"
"$pmonsim" --program "$work/program.sh" --report csv --trace "$work/big.csv" --trace "$work/events.csv" --parse-threads 1 \
    > "$work/big_one.out"
cmp -s "$work/big.out" "$work/big_one.out" || fail "big: --parse-threads 1 differs"
"$pmonsim" --program "$work/program.sh" --report csv --trace "$work/big.csv" --parse-threads 4 > /dev/null ||
    fail "big: --parse-threads 4"
big | awk 'NR == 390000 { $0 = "5,0,rx,DRS" } { print }' > "$work/big_order.csv"
expect_bad big_order "big_order.csv:390000:1: .*time order" --trace "$work/big_order.csv" --trace "$work/events.csv"
big | awk 'NR == 250000 { $0 = "749997,0,rx,DRX" } { print }' > "$work/big_value.csv"
expect_bad big_value "big_value.csv:250000:4: column 'mc': 'DRX'" --trace "$work/events.csv" --trace "$work/big_value.csv"
# From the first line of chunk 5 (the first line starting at or after byte 18 + 5 x 512 KiB,
# 18 being the header's length) every row is 7 cycles earlier: in order within each chunk,
# out of order only across that chunk's start.
big | awk -v from=$((18 + 5 * 524288)) 'NR > 1 && off >= from && !line { line = NR }
      { if (line) { split($0, f, ","); $0 = (f[1] - 7) "," f[2] "," f[3] "," f[4] } print; off += length($0) + 1 }
      END { print line > "/dev/stderr" }' > "$work/big_boundary.csv" 2> "$work/big_boundary.line"
expect_bad big_boundary "big_boundary.csv:$(cat "$work/big_boundary.line"):1: .*time order" --trace "$work/big_boundary.csv"

# Pipes given by name (read once while replaying; copied first when checked first): the same
# counts as the files, and a bad row in one is reported either way.
"$pmonsim" --program "$work/program.sh" --report csv --trace <(cat "$work/good.bin") --trace <(cat "$work/events.csv") \
    > "$work/pipes.out" || fail "pipes: exit $?"
"$pmonsim" --program "$work/program.sh" --report csv --check-first --trace <(cat "$work/good.bin") \
    --trace <(cat "$work/events.csv") > "$work/pipes.first.out" || fail "pipes, checked first: exit $?"
cmp -s "$work/pipes.out" "$work/good.out" || fail "pipes: the report differs from the files'"
cmp -s "$work/pipes.first.out" "$work/good.out" || fail "pipes, checked first: the report differs from the files'"
for first in "" --check-first; do
    set +e
    "$pmonsim" --program "$work/program.sh" $first --trace <(cat "$work/late_value.csv") > "$work/pipe_bad.out" 2> "$work/pipe_bad.err"
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "bad pipe ${first:-while replaying}: exit $rc"
    [ ! -s "$work/pipe_bad.out" ] || fail "bad pipe ${first:-while replaying}: printed $(head -c 200 "$work/pipe_bad.out")"
    grep -Eq "/dev/fd/[0-9]+:20000:3: column 'dir': 'rxx'" "$work/pipe_bad.err" ||
        fail "bad pipe ${first:-while replaying}: $(cat "$work/pipe_bad.err")"
done
echo "traces checked while replaying: same errors, exit status and output as checked first"
