#!/usr/bin/env bash
# pmon-stat's hardware code path (--target hw, no --hw-root: the real /dev,
# /sys and /proc) run under `pmonsim exec` must print exactly what
# --target sim prints on the same trace: discovery, programming, reading and
# timing of driver/ verified end to end against the model.
# Usage: pmon_stat_hw_under_exec.sh PMONSIM PMON_STAT TRACES_DIR
set -euo pipefail
pmonsim=$1 stat=$2 traces=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check() {  # name, a line fragment the output must hold, model options..., "--", pmon-stat's options
  local name=$1 expect=$2; shift 2
  local model=()
  while [ "$1" != "--" ]; do model+=("$1"); shift; done
  shift
  "$stat" --target sim "${model[@]}" "$@" > "$work/sim.out"
  "$pmonsim" exec "${model[@]}" --report none -- "$stat" --target hw "$@" > "$work/hw.out"
  if ! diff -u "$work/sim.out" "$work/hw.out"; then echo "FAIL: $name: hw under exec differs from sim"; exit 1; fi
  # Not vacuous: a count the trace's README works out.
  grep -qF -- "$expect" "$work/hw.out" || { echo "FAIL: $name: no '$expect'"; cat "$work/hw.out"; exit 1; }
  echo "ok: $name ($(grep -c '' "$work/hw.out") identical lines)"
}
check "one socket, QPI and UBox events" "S0,1,800,,qpi0/RxL_FLITS_G1.DRS_DATA" --trace "$traces/drs_data_transfer/packets.csv" -- \
  -e qpi0/RxL_FLITS_G0.DATA,qpi0/RxL_FLITS_G1.DRS_DATA,ubox_fixed/UCLK,qpi0/CTO_COUNT:DRS.AnyDataC --duration 0.000002 -x,
check "two sockets, intervals, metrics" "0.000000500,S0,1,472,,qpi0/RxL_FLITS_G0.DATA" --sockets 2 --trace "$traces/mixed_workload/packets.csv" -- \
  -M qpi_data_bw -e ubox/EVENT_MSG.MSI_RCVD,r2pcie/RING_AD_USED.CW -I 0.0005 --duration 0.000002 -x,
check "R2PCIe events, perf output" "500      r2pcie/RxR_OCCUPANCY.DRS" --cpu ivb-ep --trace "$traces/r2pcie_ring/events.csv" -- \
  -e r2pcie/RxR_OCCUPANCY.DRS,r2pcie/RING_AD_USED.CW --duration 0.000003
check "UBox events, JSON" '"counter-value" : "10.000000", "unit" : "", "event" : "ubox/LOCK_CYCLES,thresh=1,edge"' --trace "$traces/ubox_lock_msg/events.csv" -- \
  -e ubox/EVENT_MSG.MSI_RCVD,ubox/LOCK_CYCLES,thresh=1,edge --duration 0.000005 --json
check "memory-controller channels, Intel's full name on every channel" "200      imc1/UNC_M_CAS_COUNT.RD" --trace "$traces/memory_bandwidth/events.csv" -- \
  -e UNC_M_CAS_COUNT.RD,imc2/CAS_COUNT.WR,uncore_imc_3/event=0x10/ --duration 0.0000025
check "snb-ep channels (D16:F0/F1/F4/F5)" "1,000      imc0/CAS_COUNT.RD" --cpu snb-ep --trace "$traces/memory_bandwidth/events.csv" -- \
  -e imc0/CAS_COUNT.RD,imc1/CAS_COUNT.RD --duration 0.0000025
printf 'cycle,box,event,umask,count,repeat\n0,cbo2,LLC_LOOKUP,ANY,1,1200\n0,cbo5,LLC_VICTIMS,M_STATE,1,30\n' > "$work/cbo.csv"
check "caching agents (MSR boxes found by their BOX_CTL), Intel's full name on each" "1,200      cbo2/LLC_LOOKUP.ANY" --trace "$work/cbo.csv" -- \
  -e cbo2/LLC_LOOKUP.ANY -e cbo5/LLC_VICTIMS.M_STATE -e UNC_C_CLOCKTICKS --duration 0.000001
check "the PCU: occupancy, a band with its filter byte, Linux's terms" "6,200      pcu/POWER_STATE_OCCUPANCY.CORES_C0" --trace "$traces/power_states/events.csv" -- \
  -e pcu/POWER_STATE_OCCUPANCY.CORES_C0 -e pcu/FREQ_BAND2_CYCLES,filter_band2=20 \
  -e uncore_pcu/event=0x80,occ_sel=2,thresh=1,occ_edge/ -e pcu/POWER_STATE_OCCUPANCY.CORES_C6,thresh=4 --duration 0.000002
printf 'cycle,box,event,umask,count,repeat\n0,irp,TRANSACTIONS,WRITES,1,700\n0,irp,CACHE_READ_OCCUPANCY,ANY,20,100\n' > "$work/irp.csv"
check "the IRP (05.6, counters at 0xA0/0xB0/0xB8/0xC0)" "2,000      uncore_irp/event=0x10,umask=0x1/" --trace "$work/irp.csv" -- \
  -e irp/TRANSACTIONS.WRITES -e uncore_irp/event=0x10,umask=0x1/ -e irp/CLOCKTICKS -e UNC_I_TRANSACTIONS.READS --duration 0.000001
check "request filters: the caching agents' (MSRs) and the home agent's (PCI) from the events' terms" \
  "500      ha0/ADDR_OPC_MATCH.FILT,filter_addr=0x7f001040,filter_opc=1" --cpu ivb-ep --trace "$traces/qualified_requests/events.csv" -- \
  -e uncore_cbox_0/event=0x35,umask=0x1,filter_opc2=0x182,tid_en=1,filter_tid=2/ -e cbo0/LLC_LOOKUP.DATA_READ,filter_state2=0xc \
  -e cbo1/TOR_INSERTS.NID_ALL,filter_nid2=2 -e ha0/ADDR_OPC_MATCH.FILT,filter_addr=0x7f001040,filter_opc=1 --duration 0.000001
