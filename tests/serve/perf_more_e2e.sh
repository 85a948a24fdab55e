#!/usr/bin/env bash
# More of Debian's perf stat against the model: intervals (-I) on the virtual
# clock, CTO_COUNT with the QPI packet filter as perf encodes it, and a perf
# killed with its events open while another perf counts on the same server.
# Usage: perf_more_e2e.sh PMONSIM TRACES_DIR
set -uo pipefail
pmonsim=$1 traces=$2
command -v perf >/dev/null || { echo "SKIP: perf (linux-perf) is not installed"; exit 77; }
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill -9 "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
flits=uncore_qpi_0/event=0x0,umask=0x2/

# 1. -I 1 over 5 ms: 100 DRS packets sent a millisecond (8 data flits each)
#    on socket 0: 800 flits in every interval, none on socket 1, and the
#    intervals add up to the run's count in the report.
{ echo "time,socket,port,dir,mc"
  awk 'BEGIN { for (i = 0; i < 500; ++i) printf "%d,0,0,tx,DRS\n", i * 10000 + 5000 }'; } > "$work/q.csv"
timeout 120 "$pmonsim" exec --sockets 2 --trace "$work/q.csv" --report csv --report-file "$work/r.csv" -- \
  perf stat -a -x, -I 1 --per-socket -e "$flits" -- sleep 0.005 > /dev/null 2> "$work/i.out" || fail "perf stat -I"
for t in 1 2 3 4 5; do
  grep -q "^ *0.00${t}000000,S0,1,800,,$flits," "$work/i.out" || { cat "$work/i.out"; fail "interval $t on S0"; }
  grep -q "^ *0.00${t}000000,S1,1,0,,$flits," "$work/i.out" || { cat "$work/i.out"; fail "interval $t on S1"; }
done
grep -q '^0,qpi0,[0-3],0x00000200,TxL_FLITS_G0.DATA,4000,' "$work/r.csv" || fail "the report's count is not 4000"
echo "ok: -I 1: 5 intervals of 800 flits, 4000 in the report"

# 2. CTO_COUNT (event 0x38 with the extra select bit: perf's event=0x138)
#    through the DRS.AnyDataC filter and DRS data flits, as Linux perf programs
#    them on the example trace: the counts traces/drs_data_transfer's
#    perf_session.sh reads back with setpci (0x64 and 0x320).
timeout 120 "$pmonsim" exec --trace "$traces/drs_data_transfer/packets.csv" --report none -- \
  perf stat -a -x, -e 'uncore_qpi_0/event=0x138,match_mc=0xe,mask_mc=0xf,mask_opc=0xc/' \
  -e uncore_qpi_0/event=0x102,umask=0x08/ -- sleep 0.000002 > /dev/null 2> "$work/c.out" || fail "perf stat CTO_COUNT"
expected=$("$pmonsim" --trace "$traces/drs_data_transfer/packets.csv" --script "$traces/drs_data_transfer/perf_session.sh" \
  --report none | sed -n '2p;4p' | while read -r v; do echo $(( 0x$v )); done | paste -sd' ')
got=$(awk -F, '{ print $1 }' "$work/c.out" | paste -sd' ')
[ "$expected" = "100 800" ] && [ "$got" = "$expected" ] || fail "CTO_COUNT and DRS_DATA: perf '$got', the script '$expected'"
echo "ok: CTO_COUNT through the filter: $got"

# Config bits outside the box's event mask are dropped, not refused (the
# driver masks them): reserved bit 19 on UBox EVENT_MSG.MSI_RCVD never reaches
# the control register, and the event counts the trace's 37 messages.
cat > "$work/ev.csv" <<'EOT'
time,socket,box,event,umask,ext,count,repeat
200000,0,ubox,EVENT_MSG.MSI_RCVD,,,1,37
EOT
timeout 60 "$pmonsim" exec --trace "$work/ev.csv" --log "$work/m.log" --report none -- \
  perf stat -a -x, -e uncore_ubox/config=0x80242/ -- sleep 0.001 > /dev/null 2> "$work/m.out" || fail "masked config"
grep -q '^37,,uncore_ubox/config=0x80242/,' "$work/m.out" || { cat "$work/m.out"; fail "masked config: not 37"; }
grep -q 'perf: wrmsr cpu 0 0xc10 <- 0x400242$' "$work/m.log" || fail "masked config: the control is not 0x400242"
grep -q 'diagnostic' "$work/m.log" && fail "masked config: a reserved bit reached the model"
echo "ok: config bits outside the event mask dropped"

# The host's own PMUs are listed beside the machine's, and a software event is the host's.
timeout 60 "$pmonsim" exec --report none -- sh -c 'ls /sys/bus/event_source/devices; perf stat -x, -e task-clock -- true' \
  > "$work/h.out" 2>&1 || { cat "$work/h.out"; fail "the host's software PMU"; }
for pmu in software tracepoint cpu uncore_ubox uncore_qpi_0; do grep -qx "$pmu" "$work/h.out" || fail "no $pmu PMU listed"; done
grep -q ',task-clock,' "$work/h.out" || { cat "$work/h.out"; fail "perf stat -e task-clock"; }
# ... and nothing else of the host's: its other PMUs (power, msr, ...) count the
# host, so they are neither listed nor found by their real paths.
extra=$(grep -v ',task-clock,' "$work/h.out" | grep -xvE 'software|tracepoint|breakpoint|cpu|uncore_.*' | tr '\n' ' ')
[ -z "$extra" ] || fail "host PMUs listed beside the machine's: $extra"
names=() reals=()
for d in /sys/bus/event_source/devices/*; do
  name=$(basename "$d")
  case $name in software|tracepoint|breakpoint|cpu|uncore_*) continue ;; esac
  names+=("$name") reals+=("$(readlink -f "$d")")
done
if [ ${#reals[@]} -gt 0 ]; then
  found=$("$pmonsim" exec --report none -- sh -c 'for p; do test -e "$p" && echo "$p"; done; true' sh "${reals[@]}") ||
    fail "the check of the host's PMU paths did not run"
  [ -z "$found" ] || fail "host PMUs found under exec: $found"
fi
echo "ok: the host's software PMUs beside the machine's, its other ones hidden: ${names[*]:-(the host has none)}"

# 3. A perf killed with its events open: the server goes on, and another perf counts right.
sock=$work/s
"$pmonsim" serve --socket "$sock" --sockets 2 --trace "$work/q.csv" --log "$work/log" --report none &
server=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
mkfifo "$work/hold"
"$pmonsim" exec --connect "$sock" -- perf stat -a -e "$flits" -- cat "$work/hold" > /dev/null 2>&1 &
victim=$!
for _ in $(seq 200); do grep -q "perf_event_open\|perf: " "$work/log" 2>/dev/null && break; sleep 0.05; done
sleep 0.3
pkill -9 -f "perf stat -a -e $flits -- cat" || fail "the victim perf was not running"
exec 3> "$work/hold"; exec 3>&-
wait "$victim" 2>/dev/null
timeout 60 "$pmonsim" exec --connect "$sock" -- perf stat -a -x, --per-socket -e "$flits" -- sleep 0.002 \
  > /dev/null 2> "$work/k.out" || fail "perf after a killed perf"
grep -q "^S0,1,1600,,$flits," "$work/k.out" || { cat "$work/k.out"; fail "perf after a killed perf: not 1600 flits"; }
kill -TERM "$server"; wait "$server" || fail "the server failed"; server=
echo "ok: a killed perf's events are released; the next perf counts 1600"
