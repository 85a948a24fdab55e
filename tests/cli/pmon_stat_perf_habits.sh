#!/usr/bin/env bash
# pmon-stat as a perf stat user types it (issue 15, items 7 and 9): -I to the
# end of the run, units on times, thousands separators, -e order, one counter
# for an event asked twice, -a, -- CMD, --list FILTER, Intel's full names,
# EVENT:modifier, CPU aliases, and "did you mean" for misspellings.
# Usage: pmon_stat_perf_habits.sh PMON-STAT SOURCE-DIR
set -u
P=$1
T=$2/traces/mixed_workload/packets.csv
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# -I: every interval is exactly 0.5 us but the last, which ends the run.
"$P" --trace "$T" -e qpi0/CLOCKTICKS -I 0.0005 --no-big-num > "$tmp/i" || fail "-I run"
awk '!/^#/ {print $1, $2}' "$tmp/i" > "$tmp/t"
n=$(wc -l < "$tmp/t")
[ "$n" -ge 3 ] || fail "-I gave $n intervals"
awk -v n="$n" '{ if (NR < n && ($1 - p < 0.00000049999 || $1 - p > 0.00000050001)) { print "interval " NR " is " $1 - p; bad = 1 }
                 if (NR == n && ($1 - p > 0.00000050001 || $1 - p <= 0)) { print "last interval " $1 - p; bad = 1 }
                 p = $1 } END { exit bad }' "$tmp/t" || fail "-I intervals are not exactly T up to the last"
# ... and the clock ticks of an interval are those of 0.5 us (500 at 1 GHz QCLK... whatever the clock: all equal)
awk -v n="$n" 'NR < n {print $2}' "$tmp/t" | sort -u | wc -l | grep -qx 1 || fail "full intervals count different clock ticks"

# Units on times, and perf's plain numbers.
"$P" --trace "$T" -e qpi0/CLOCKTICKS -I 500ns --no-big-num > "$tmp/i2" && cmp -s "$tmp/i" "$tmp/i2" || fail "-I 500ns differs from -I 0.0005"
a=$("$P" --trace "$T" -e qpi0/CLOCKTICKS --duration 2us --no-big-num | grep CLOCKTICKS)
b=$("$P" --trace "$T" -e qpi0/CLOCKTICKS --duration 0.000002 --no-big-num | grep CLOCKTICKS)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "--duration 2us ($a) differs from 0.000002 ($b)"
"$P" -e qpi0/CLOCKTICKS -I 5parsecs 2>&1 | grep -q "needs a time" || fail "-I 5parsecs not refused"

# Thousands separators by default (-B), none with --no-big-num.
"$P" --trace "$T" -e qpi0/CLOCKTICKS | grep -Eq '^ +4,002 +qpi0/CLOCKTICKS' || fail "no separators by default"
"$P" --trace "$T" -e qpi0/CLOCKTICKS -B | grep -Eq '^ +4,002 ' || fail "-B"
"$P" --trace "$T" -e qpi0/CLOCKTICKS --no-big-num | grep -Eq '^ +4002 ' || fail "--no-big-num"

# -e order, and one counter for an event asked twice (by -e and by -M too).
"$P" --trace "$T" -e r2pcie/CLOCKTICKS,qpi1/CLOCKTICKS,qpi0/RxL_FLITS_G1.DRS_DATA -a > "$tmp/o" || fail "-a refused"
grep -oE '(r2pcie|qpi[01])/[A-Za-z0-9_.]+' "$tmp/o" | tr '\n' ' ' |
  grep -qx 'r2pcie/CLOCKTICKS qpi1/CLOCKTICKS qpi0/RxL_FLITS_G1.DRS_DATA ' || fail "not in -e order: $(cat "$tmp/o")"
"$P" --trace "$T" -e qpi0/CLOCKTICKS,qpi0/CLOCKTICKS > "$tmp/o" || fail "an event twice"
[ "$(grep -c 'qpi0/CLOCKTICKS' "$tmp/o")" = 1 ] || fail "an event asked twice is printed twice"
# qpi_link_util uses each port's G0 DATA/NON_DATA and CLOCKTICKS: with three
# more of them given by -e, 4 counters still suffice.
"$P" --trace "$T" -e qpi0/TxL_FLITS_G0.DATA,qpi0/TxL_FLITS_G0.NON_DATA,qpi0/CLOCKTICKS -M qpi_link_util > "$tmp/o" 2>&1 ||
  fail "-e and -M sharing events took too many counters: $(cat "$tmp/o")"

# Intel's full names without a box: every box of the type.
"$P" --trace "$T" -e UNC_Q_RxL_FLITS_G1.DRS_DATA > "$tmp/o" || fail "full name refused"
grep -q 'qpi0/UNC_Q_RxL_FLITS_G1.DRS_DATA' "$tmp/o" && grep -q 'qpi1/UNC_Q_RxL_FLITS_G1.DRS_DATA' "$tmp/o" ||
  fail "full name not counted on both ports: $(cat "$tmp/o")"
# The UBox's full names (one UBox, found by no discovery) on the UBox; a full
# name after a comma is an event of its own, not a modifier of the one before.
U=$2/traces/ubox_lock_msg/events.csv
"$P" --trace "$U" -e ubox/EVENT_MSG.MSI_RCVD,UNC_U_LOCK_CYCLES,thresh=1,edge -x, > "$tmp/o" 2>&1 || fail "UBox full name refused: $(cat "$tmp/o")"
grep -q '^S0,1,50,,ubox/EVENT_MSG.MSI_RCVD,' "$tmp/o" && grep -q '^S0,1,10,,ubox/UNC_U_LOCK_CYCLES,thresh=1,edge,' "$tmp/o" ||
  fail "a UBox full name after a comma: $(cat "$tmp/o")"
"$P" --trace "$U" -e UNC_U_EVENT_MSG.MSI_RCVD -x, > "$tmp/o" 2>&1
grep -q '^S0,1,50,,ubox/UNC_U_EVENT_MSG.MSI_RCVD,' "$tmp/o" || fail "UNC_U_EVENT_MSG.MSI_RCVD alone: $(cat "$tmp/o")"
# EVENT:modifier as perf writes it equals the comma form.
a=$("$P" --trace "$T" -e qpi1/RxL_FLITS_G1.DRS_DATA:thresh=1 --no-big-num | awk '/DRS_DATA/ {print $1}')
b=$("$P" --trace "$T" -e qpi1/RxL_FLITS_G1.DRS_DATA,thresh=1 --no-big-num | awk '/DRS_DATA/ {print $1}')
[ -n "$a" ] && [ "$a" = "$b" ] || fail ":thresh=1 ($a) differs from ,thresh=1 ($b)"

# -- CMD: counted while it runs; its exit status; one that cannot run.
start=$(date +%s%N)
"$P" -e qpi0/CLOCKTICKS --no-big-num -- sleep 0.3 > "$tmp/o" || fail "-- sleep 0.3"
end=$(date +%s%N)
secs=$(awk '/seconds time elapsed/ {print $1}' "$tmp/o")
awk -v s="$secs" 'BEGIN { exit !(s >= 0.3 && s < 5) }' || fail "-- sleep 0.3 measured $secs s"
[ $(((end - start) / 1000000)) -ge 300 ] || fail "returned before the command ended"
"$P" -e qpi0/CLOCKTICKS -- sh -c 'exit 3' > /dev/null; [ $? = 3 ] || fail "the command's exit status is not pmon-stat's"
"$P" -e qpi0/CLOCKTICKS -- /nonexistent/cmd > /dev/null 2> "$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "cannot run '/nonexistent/cmd'" "$tmp/e" || fail "a command that cannot run: rc $rc, $(cat "$tmp/e")"
"$P" -e qpi0/CLOCKTICKS sleep 1 > /dev/null 2> "$tmp/e"; [ $? = 2 ] && grep -q "goes after --" "$tmp/e" || fail "a stray word"
"$P" -e qpi0/CLOCKTICKS 2> "$tmp/e" > /dev/null; grep -q "no --trace" "$tmp/e" || fail "no hint without a trace"

# --list FILTER with descriptions.
"$P" --list drs_data > "$tmp/o" || fail "--list drs_data"
grep -q 'qpi0/RxL_FLITS_G1.DRS_DATA  .*[a-z]' "$tmp/o" || fail "--list has no descriptions: $(head -3 "$tmp/o")"
! grep -q 'CLOCKTICKS' "$tmp/o" || fail "--list drs_data shows CLOCKTICKS"
"$P" --list qpi_ > "$tmp/o" && grep -q qpi_link_util "$tmp/o" || fail "--list qpi_ lacks the metrics"
"$P" --list nothing_like_this > /dev/null 2>&1; [ $? = 2 ] || fail "--list of no match is not an error"

# CPU names: any case, perf's names, and a suggestion.
for c in IVB-EP ivytown ivb jaketown NehalemEP westmereep-dp; do
  "$P" --cpu "$c" --list UCLK > /dev/null || fail "--cpu $c refused"
done
"$P" --cpu ivy-ep --list 2>&1 | grep -q "did you mean ivb-ep" || fail "--cpu ivy-ep: no suggestion"

# Did you mean: options, metrics, events, sub-events, boxes.
"$P" --trce "$T" 2>&1 | grep -q "did you mean --trace" || fail "--trce"
"$P" --trace "$T" -M qpi_bw 2>&1 | grep -q "the metrics: .*qpi_data_bw" || fail "-M qpi_bw does not list the metrics"
"$P" --trace "$T" -e qpi0/RxL_FLIT_G1.DRS_DATA 2>&1 | grep -q "did you mean RxL_FLITS_G1" || fail "event suggestion"
"$P" --trace "$T" -e qpi0/RxL_FLITS_G1.DRS_DAT 2>&1 | grep -q "did you mean DRS_DATA" || fail "sub-event suggestion"
"$P" --trace "$T" -e qpl0/RxL_FLITS_G1.DRS_DATA 2>&1 | grep -q "did you mean qpi0" || fail "box suggestion"

[ $fails = 0 ] && echo "all good"
exit $((fails > 0))
