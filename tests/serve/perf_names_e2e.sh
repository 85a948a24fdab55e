#!/usr/bin/env bash
# Debian's perf, unmodified, under `pmonsim exec` on a 2-socket machine, by
# names rather than raw encodings:
#  1. sysfs events/: the aliases Linux's uncore driver defines for these
#     boxes (snb-ep's QPI type: clockticks, txl_flits_active, drs_data,
#     ncb_data; no other type, and nothing on ivb-ep), contents exact;
#  2. `perf stat` of those aliases per socket: each count is the model's
#     count in the counter perf programmed (the run's CSV report);
#  3. `perf list`: the aliases as Kernel PMU events (snb-ep), and Intel's
#     event tables for the CPU perf identifies from CPUID (IvyTown, JakeTown)
#     tied to the served uncore_qpi PMUs;
#  4. `perf stat` by Intel's names (UNC_Q_TxL_FLITS_G0.DATA, UNC_Q_CLOCKTICKS,
#     UNC_Q_RxL_FLITS_G1.DRS_DATA): perf opens the event on every QPI port's
#     PMU and sums them, so each socket's count is the sum of the report's
#     counters on qpi0 and qpi1;
#  5. the memory-controller channels (both CPUs): the driver's aliases
#     clockticks (the DCLK counter), cas_count_read/_write with their .scale
#     (64 / 2^20) and .unit (MiB) files, which perf applies, and Intel's
#     UNC_M_CAS_COUNT.RD summed over the channels.
# As in perf_e2e.sh, the virtual clock moves only by the workload's 1 ms
# sleep, so the counts are exact and repeatable.
# Usage: perf_names_e2e.sh PMONSIM
set -uo pipefail
pmonsim=$1
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; for f in out err; do [ -f "$work/$f" ] && { echo "--- $f"; cat "$work/$f"; }; done; exit 1; }
checked=0

# 1. sysfs events/ (the driver prints an alias without a newline)
"$pmonsim" exec --cpu snb-ep --sockets 2 --report none -- sh -c '
  for p in uncore_qpi_0 uncore_qpi_1; do
    for f in /sys/bus/event_source/devices/$p/events/*; do echo "$p $(basename $f) $(cat $f)|"; done
  done
  for p in uncore_ubox uncore_r2pcie; do [ -e /sys/devices/$p/events ] && echo "$p has events"; done
  true' > "$work/out" 2> "$work/err" || fail "listing events/ on snb-ep"
[ "$(wc -l < "$work/out")" = 8 ] || fail "snb-ep: expected 8 aliases (4 per QPI port)"
for p in uncore_qpi_0 uncore_qpi_1; do
  while read -r name value; do
    grep -qxF "$p $name $value|" "$work/out" || fail "snb-ep: no alias '$p $name $value'"
    checked=$((checked + 1))
  done <<'EOT'
clockticks event=0x14
txl_flits_active event=0x00,umask=0x06
drs_data event=0x102,umask=0x08
ncb_data event=0x103,umask=0x04
EOT
done
"$pmonsim" exec --sockets 2 --report none -- sh -c '
  for p in uncore_ubox uncore_r2pcie uncore_qpi_0 uncore_qpi_1; do
    [ -d /sys/devices/$p/format ] || echo "$p has no format/"
    [ -e /sys/devices/$p/events ] && echo "$p has events"
  done; true' > "$work/out" 2> "$work/err" || fail "listing events/ on ivb-ep"
[ ! -s "$work/out" ] || fail "ivb-ep: the driver defines no aliases for these boxes"
# So perf refuses the name there, as on an ivb-ep machine.
"$pmonsim" exec --report none -- perf stat -a -x, -e uncore_qpi_0/clockticks/ -- true > "$work/out" 2> "$work/err" &&
  fail "ivb-ep: perf accepted uncore_qpi_0/clockticks/"
grep -q "unknown term 'clockticks' for pmu 'uncore_qpi_0'" "$work/err" || fail "ivb-ep: no 'unknown term' from perf"
checked=$((checked + 2))

# 2. perf stat of the aliases (snb-ep). Socket 0 port 0 receives two DRS
# packets and an NCB one and sends an NCB one; socket 1 port 0 sends a DRS one.
{
  echo "time,socket,port,dir,mc"
  echo "100000,0,0,rx,DRS"
  echo "101000,0,0,rx,DRS"
  echo "102000,1,0,tx,DRS"
  echo "103000,0,0,tx,NCB"
  echo "104000,0,0,rx,NCB"
} > "$work/qpi.csv"
report() { awk -F, -v s="$1" -v b="$2" -v c="$3" '$1 == s && $2 == b && $4 == c { print $6 }' "$work/report.csv"; }
# (An event's name may hold commas: the fields after the fifth that end it.)
perf_count() { awk -F, -v s="$1" -v e="$2" '$1 == s { n = $5; for (i = 6; i <= NF && n != e && index(e, n ",") == 1; ++i) n = n "," $i
                                                       if (n == e) print $3 }' "$work/err"; }
expect() {  # socket event expected
  local got
  got=$(perf_count "S$1" "$2")
  [ "$got" = "$3" ] || fail "$2 on socket $1: perf printed '$got', expected $3"
  checked=$((checked + 1))
}
"$pmonsim" exec --cpu snb-ep --sockets 2 --trace "$work/qpi.csv" --report csv --report-file "$work/report.csv" -- \
  perf stat -a -x, --per-socket -e uncore_qpi_0/drs_data/ -e uncore_qpi_0/ncb_data/ \
  -e uncore_qpi_0/txl_flits_active/ -e uncore_qpi_0/clockticks/ -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat of the aliases"
# The control each alias programs: event | umask << 8 | the extra select bit (21).
for s in 0 1; do
  while read -r alias control; do
    want=$(report "$s" qpi0 "$control")
    [ -n "$want" ] || fail "the report shows no qpi0 counter with control $control on socket $s"
    expect "$s" "uncore_qpi_0/$alias/" "$want"
  done <<'EOT'
drs_data 0x00200802
ncb_data 0x00200403
txl_flits_active 0x00000600
clockticks 0x00000014
EOT
done
# The trace's volume: socket 0 received 2 DRS packets' data flits, 8 each.
expect 0 uncore_qpi_0/drs_data/ 16
expect 1 uncore_qpi_0/drs_data/ 0
expect 0 uncore_qpi_0/clockticks/ 1000000   # 1 ms of a 1 GHz QCLK
[ "$(perf_count S0 uncore_qpi_0/ncb_data/)" -gt 0 ] || fail "ncb_data counted nothing on socket 0"
[ "$(perf_count S1 uncore_qpi_0/txl_flits_active/)" -gt 0 ] || fail "txl_flits_active counted nothing on socket 1"
checked=$((checked + 2))

# 3. perf list
"$pmonsim" exec --cpu snb-ep --sockets 2 --report none -- perf list > "$work/out" 2> "$work/err" ||
  fail "perf list on snb-ep"
for p in uncore_qpi_0 uncore_qpi_1; do
  for a in clockticks drs_data ncb_data txl_flits_active; do
    grep -Eq "^ +$p/$a/ +\[Kernel PMU event\]" "$work/out" || fail "perf list (snb-ep): no $p/$a/ Kernel PMU event"
    checked=$((checked + 1))
  done
done
grep -q "unc_q_rxl_flits_g1.drs_data" "$work/out" || fail "perf list (snb-ep): no JakeTown QPI events"
checked=$((checked + 1))
"$pmonsim" exec --sockets 2 --report none -- perf list > "$work/out" 2> "$work/err" || fail "perf list on ivb-ep"
for e in unc_q_txl_flits_g0.data unc_q_clockticks; do
  grep -A2 -E "^ +$e " "$work/out" | grep -q "Unit: uncore_qpi" || fail "perf list (ivb-ep): no $e on uncore_qpi"
  checked=$((checked + 1))
done
grep -q "Unit: uncore_r2pcie" "$work/out" || fail "perf list (ivb-ep): no R2PCIe events"
grep -q "Unit: uncore_ubox" "$work/out" || fail "perf list (ivb-ep): no UBox events"
checked=$((checked + 2))

# 4. perf stat by Intel's names: the sum over both QPI ports of each socket.
sum_ports() { echo $(( $(report "$1" qpi0 "$2") + $(report "$1" qpi1 "$2") )); }
"$pmonsim" exec --sockets 2 --trace "$work/qpi.csv" --report csv --report-file "$work/report.csv" -- \
  perf stat -a -x, --per-socket -e UNC_Q_TxL_FLITS_G0.DATA -e UNC_Q_CLOCKTICKS -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat by IvyTown names"
for s in 0 1; do
  expect "$s" UNC_Q_TxL_FLITS_G0.DATA "$(sum_ports "$s" 0x00000200)"
  expect "$s" UNC_Q_CLOCKTICKS 2000000   # two ports, 1 ms each
done
[ "$(perf_count S1 UNC_Q_TxL_FLITS_G0.DATA)" -gt 0 ] || fail "UNC_Q_TxL_FLITS_G0.DATA counted nothing on socket 1"
checked=$((checked + 1))
"$pmonsim" exec --cpu snb-ep --sockets 2 --trace "$work/qpi.csv" --report csv --report-file "$work/report.csv" -- \
  perf stat -a -x, --per-socket -e UNC_Q_RxL_FLITS_G1.DRS_DATA -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat by JakeTown names"
expect 0 UNC_Q_RxL_FLITS_G1.DRS_DATA "$(sum_ports 0 0x00200802)"
expect 0 UNC_Q_RxL_FLITS_G1.DRS_DATA 16
expect 1 UNC_Q_RxL_FLITS_G1.DRS_DATA 0

# 5. Memory-controller channels: socket 0 channel 0 reads 200000 lines,
# socket 1 channel 1 writes 100000, from 0.1 ms.
{
  echo "time,socket,box,event,umask,count,repeat"
  echo "100000,0,imc0,CAS_COUNT,RD_REG,1,200000"
  echo "100000,1,imc1,CAS_COUNT,WR_WMM,1,100000"
} > "$work/mem.csv"
for cpu in snb-ep ivb-ep; do
  # (As the driver prints them: without a newline.)
  "$pmonsim" exec --cpu $cpu --sockets 2 --report none -- sh -c '
    for f in cas_count_write.scale cas_count_write.unit clockticks; do
      printf "%s|" "$(cat /sys/bus/event_source/devices/uncore_imc_2/events/$f)"; done' \
    > "$work/out" 2> "$work/err" || fail "$cpu: reading uncore_imc_2's events/"
  [ "$(cat "$work/out")" = "6.103515625e-5|MiB|event=0xff,umask=0x00|" ] ||
    fail "$cpu: uncore_imc_2 events/ are '$(cat "$work/out")'"
  "$pmonsim" exec --cpu $cpu --sockets 2 --trace "$work/mem.csv" --report csv --report-file "$work/report.csv" -- \
    perf stat -a -x, --per-socket -e uncore_imc_0/cas_count_read/ -e uncore_imc_1/cas_count_write/ \
    -e uncore_imc_0/clockticks/ -e UNC_M_CAS_COUNT.RD -- sleep 0.001 > "$work/out" 2> "$work/err" ||
    fail "$cpu: perf stat of the memory-controller channels"
  expect 0 uncore_imc_0/cas_count_read/ 12.21    # 200000 x 64 B in MiB
  expect 1 uncore_imc_1/cas_count_write/ 6.10    # 100000 x 64 B
  expect 1 uncore_imc_0/cas_count_read/ 0.00
  expect 0 uncore_imc_0/clockticks/ 800000       # 1 ms of the 800 MHz DCLK
  expect 0 UNC_M_CAS_COUNT.RD 200000             # the sum over the 4 channels
  expect 1 UNC_M_CAS_COUNT.RD 0
  grep -q "^S0,1,12.21,MiB,uncore_imc_0/cas_count_read/" "$work/err" || fail "$cpu: cas_count_read is not in MiB"
done

# 6. The PCU (uncore_pcu): occupancy sub-counters by occ_sel, occ_edge with a
# threshold, the band filter by filter_bandN (config1), Intel's names, and the
# ext events (SNB-EP FREQ_TRANS_CYCLES is event=0x100, CLOCKTICKS 0x00). From
# 0.1 ms socket 0 runs at 2.4 GHz with 6 cores in C0 for 200000 PCU cycles,
# then at 1.2 GHz for as long; two of its cores sit in C3 from 0.2 ms for
# 50000 cycles; socket 1 holds 3 cores in C6 for 400000 cycles.
{
  echo "time,socket,box,event,umask,count,repeat"
  echo "100000,0,pcu,FREQ_BAND0_CYCLES,,24,200000"
  echo "100000,0,pcu,POWER_STATE_OCCUPANCY,CORES_C0,6,200000"
  echo "100000,1,pcu,POWER_STATE_OCCUPANCY,CORES_C6,3,400000"
  echo "200000,0,pcu,POWER_STATE_OCCUPANCY,CORES_C3,2,50000"
  echo "350000,0,pcu,FREQ_BAND0_CYCLES,,12,200000"
} > "$work/pcu.csv"
"$pmonsim" exec --sockets 2 --trace "$work/pcu.csv" --report csv --report-file "$work/report.csv" -- \
  perf stat -a -x, --per-socket -e uncore_pcu/event=0xc,filter_band1=20/ -e uncore_pcu/event=0xd,filter_band2=10/ \
  -e uncore_pcu/event=0x80,occ_sel=1/ -e uncore_pcu/event=0x80,occ_sel=2,thresh=1,occ_edge=1/ -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat of uncore_pcu"
expect 0 uncore_pcu/event=0xc,filter_band1=20/ 200000   # the cycles at or above 2.0 GHz
expect 0 uncore_pcu/event=0xd,filter_band2=10/ 400000   # at or above 1.0 GHz
expect 0 uncore_pcu/event=0x80,occ_sel=1/ 1200000      # 6 cores x 200000 cycles
expect 0 uncore_pcu/event=0x80,occ_sel=2,thresh=1,occ_edge=1/ 1  # cores entered C3 once
expect 1 uncore_pcu/event=0x80,occ_sel=1/ 0
awk -F, '$1 == 1 && $2 == "pcu" && $3 == 5 && $6 == 1400000 { found = 1 } END { exit !found }' "$work/report.csv" ||
  fail "socket 1's C6 residency is not 0.5 ms of the 2.8 GHz TSC"
checked=$((checked + 1))
# (perf's own alias for the C6 occupancy is event=0x80 without occ_sel, which
# selects no sub-counter: it counts nothing, and the model says so.)
"$pmonsim" exec --sockets 2 --trace "$work/pcu.csv" --log "$work/log" --report none -- \
  perf stat -a -x, --per-socket -e UNC_P_POWER_STATE_OCCUPANCY.CORES_C6 -e UNC_P_CLOCKTICKS -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat by Intel's PCU names"
expect 1 UNC_P_POWER_STATE_OCCUPANCY.CORES_C6 0
grep -q "socket 1 pcu PCU_MSR_PMON_CTL0 = 0x400080: an occupancy event (ev_sel bit 7) with occ_sel 0" "$work/log" ||
  fail "no diagnostic for perf's UNC_P_POWER_STATE_OCCUPANCY.CORES_C6 without occ_sel"
checked=$((checked + 1))
expect 0 UNC_P_CLOCKTICKS 800000                       # 1 ms of the 800 MHz PCU clock
{
  echo "time,socket,box,event,umask,count,repeat"
  echo "100000,0,pcu,FREQ_TRANS_CYCLES,,1,1000"
} > "$work/snb-pcu.csv"
"$pmonsim" exec --cpu snb-ep --sockets 2 --trace "$work/snb-pcu.csv" --report none -- \
  perf stat -a -x, --per-socket -e uncore_pcu/event=0x100/ -e UNC_P_FREQ_TRANS_CYCLES -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat of SNB-EP's ext PCU events"
expect 0 uncore_pcu/event=0x100/ 1000
expect 0 UNC_P_FREQ_TRANS_CYCLES 1000
# Two band-0 events with different bytes: the driver moves the second to the
# next free band (snbep_pcu_get_constraint), and both count.
{
  echo "time,socket,box,event,umask,count,repeat"
  echo "100000,0,pcu,FREQ_BAND0_CYCLES,,24,200000"
  echo "350000,0,pcu,FREQ_BAND0_CYCLES,,32,200000"
} > "$work/bands.csv"
"$pmonsim" exec --sockets 2 --trace "$work/bands.csv" --log "$work/log" --report none -- \
  perf stat -a -x, --per-socket -e uncore_pcu/event=0xb,filter_band0=20/ -e uncore_pcu/event=0xb,filter_band0=30/ \
  -- sleep 0.001 > "$work/out" 2> "$work/err" || fail "perf stat of two band-0 events"
expect 0 uncore_pcu/event=0xb,filter_band0=20/ 400000
expect 0 uncore_pcu/event=0xb,filter_band0=30/ 200000
grep -q "perf: wrmsr cpu 0 0xc31 <- 0x40000c" "$work/log" || fail "the second band event did not move to band 1"
grep -q "perf: wrmsr cpu 0 0xc34 <- 0x1e14" "$work/log" || fail "the band filter is not 2.0 GHz in band 0 and 3.0 in band 1"
checked=$((checked + 2))

# 7. The IRP (ivb-ep's uncore_irp, its counters at 0xA0, 0xB0, 0xB8, 0xC0,
# read as two dwords each): by Linux's terms and by Intel's names.
{
  echo "time,socket,box,event,umask,count,repeat"
  echo "100000,0,irp,TRANSACTIONS,WRITES,1,5000"
  echo "100000,1,irp,CACHE_READ_OCCUPANCY,ANY,20,1000"
} > "$work/irp.csv"
"$pmonsim" exec --sockets 2 --trace "$work/irp.csv" --report none -- \
  perf stat -a -x, --per-socket -e uncore_irp/event=0x15,umask=0x2/ -e UNC_I_CACHE_READ_OCCUPANCY.ANY \
  -e UNC_I_CLOCKTICKS -e UNC_I_TRANSACTIONS.WRITES -- sleep 0.001 > "$work/out" 2> "$work/err" ||
  fail "perf stat of uncore_irp"
expect 0 uncore_irp/event=0x15,umask=0x2/ 5000
expect 1 uncore_irp/event=0x15,umask=0x2/ 0
expect 1 UNC_I_CACHE_READ_OCCUPANCY.ANY 20000  # 20 reads outstanding for 1000 cycles
expect 0 UNC_I_CLOCKTICKS 2000000              # 1 ms of the 2 GHz UCLK
expect 0 UNC_I_TRANSACTIONS.WRITES 5000

# 8. The caching agents' filter (Linux's formats in config1; decisions.md S20):
# events whose (event, umask) use a filter group write FILTER0/FILTER1 with the
# box's filter; another value of a group in use waits, not counted.
for f in filter_state2 filter_nid2 filter_opc2 filter_tid tid_en; do
  "$pmonsim" exec --report none -- cat /sys/bus/event_source/devices/uncore_cbox_0/format/$f > "$work/out" ||
    fail "uncore_cbox_0 has no format/$f"
done
[ "$(cat "$work/out")" = "config:19" ] || fail "tid_en is '$(cat "$work/out")'"
{
  echo "time,socket,box,event,umask,count,repeat"
  echo "100000,0,cbo0,LLC_LOOKUP,DATA_READ,1,3000"
  echo "100000,0,cbo0,TOR_INSERTS,OPCODE,1,500"
} > "$work/cbo.csv"
"$pmonsim" exec --sockets 2 --trace "$work/cbo.csv" --log "$work/log" --report none -- \
  perf stat -a -x, --per-socket -e uncore_cbox_0/event=0x34,umask=0x3,filter_state2=0x1f/ \
  -e uncore_cbox_0/event=0x35,umask=0x1,filter_opc2=0x182/ -e uncore_cbox_0/event=0x34,umask=0x3,filter_state2=0x1/ \
  -- sleep 0.001 > "$work/out" 2> "$work/err" || fail "perf stat with caching-agent filters"
expect 0 uncore_cbox_0/event=0x34,umask=0x3,filter_state2=0x1f/ 3000
expect 0 uncore_cbox_0/event=0x35,umask=0x1,filter_opc2=0x182/ 500
[ "$(perf_count S0 uncore_cbox_0/event=0x34,umask=0x3,filter_state2=0x1/)" = "<not counted>" ] ||
  fail "a second state filter on cbox 0 was counted"
grep -q "perf: wrmsr cpu 0 0xd1a <- 0x18200000" "$work/log" || fail "FILTER1 does not hold the opcode 0x182"
grep -q "perf: wrmsr cpu 0 0xd14 <- 0x3e0000" "$work/log" || fail "FILTER0 does not hold the states 0x1f"
checked=$((checked + 3))
# 9. Rows with request attributes (decisions.md B14): the filter perf writes
# selects them. Lookups in M and in I, DRd (0x182) and RFO (0x180) requests of
# threads 2 and 5; the state filter M takes the 2000 M lookups, the opcode
# filter both threads' 700 DRds, and with tid_en and filter_tid 2 thread 2's 500.
{
  echo "time,socket,box,event,umask,count,repeat,state,opc,tid"
  echo "100000,0,cbo0,LLC_LOOKUP,DATA_READ,1,2000,M,,"
  echo "100000,0,cbo0,LLC_LOOKUP,DATA_READ,1,1000,I,,"
  echo "100000,0,cbo0,TOR_INSERTS,OPCODE,1,500,,0x182,2"
  echo "100000,0,cbo0,TOR_INSERTS,OPCODE,1,300,,0x180,2"
  echo "100000,0,cbo0,TOR_INSERTS,OPCODE,1,200,,0x182,5"
} > "$work/cboq.csv"
"$pmonsim" exec --sockets 2 --trace "$work/cboq.csv" --report none -- \
  perf stat -a -x, --per-socket -e uncore_cbox_0/event=0x34,umask=0x3,filter_state2=0x8/ \
  -e uncore_cbox_0/event=0x35,umask=0x1,filter_opc2=0x182/ -- sleep 0.001 > "$work/out" 2> "$work/err" ||
  fail "perf stat of qualified caching-agent rows"
expect 0 uncore_cbox_0/event=0x34,umask=0x3,filter_state2=0x8/ 2000
expect 0 uncore_cbox_0/event=0x35,umask=0x1,filter_opc2=0x182/ 700
"$pmonsim" exec --sockets 2 --trace "$work/cboq.csv" --report none -- \
  perf stat -a -x, --per-socket -e uncore_cbox_0/event=0x35,umask=0x1,filter_opc2=0x182,tid_en=1,filter_tid=2/ \
  -- sleep 0.001 > "$work/out" 2> "$work/err" || fail "perf stat with tid_en"
expect 0 uncore_cbox_0/event=0x35,umask=0x1,filter_opc2=0x182,tid_en=1,filter_tid=2/ 500
# Counters are placed as Linux places them (uncore_assign_events): adding an
# event places the box's events again, fewest allowed counters first, so two
# clockticks opened first leave counters 0-1 to the lookup and the TOR event.
"$pmonsim" exec --sockets 2 --trace "$work/cbo.csv" --report none -- \
  perf stat -a -x, --per-socket -e uncore_cbox_0/event=0x00/ -e uncore_cbox_0/event=0x00,umask=0x0/ \
  -e uncore_cbox_0/event=0x34,umask=0x3/ -e uncore_cbox_0/event=0x35,umask=0x1/ -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat of four caching-agent events"
expect 0 uncore_cbox_0/event=0x00/ 2000000
expect 0 uncore_cbox_0/event=0x00,umask=0x0/ 2000000
expect 0 uncore_cbox_0/event=0x34,umask=0x3/ 3000
expect 0 uncore_cbox_0/event=0x35,umask=0x1/ 500
echo "PASS: $checked checks"
