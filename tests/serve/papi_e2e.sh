#!/usr/bin/env bash
# Debian's PAPI tools (papi-tools 7.0, libpfm4 4.13), unmodified, under
# `pmonsim exec`:
#  1. papi_component_avail / papi_native_avail: the perf_event_uncore
#     component is active and libpfm4 lists the served uncore PMUs by its own
#     names (ivbep_unc_cbo0..N, ivbep_unc_ha0, ivbep_unc_imc0..N, ivbep_unc_qpi0..N,
#     ivbep_unc_r3qpi0..N, ivbep_unc_ubo, ivbep_unc_r2pcie; snbep_* on
#     snb-ep), found from CPUID and /sys/bus/event_source/devices/*/type;
#  2. papi_command_line without a CPU: PAPI opens the uncore event with
#     pid -1 and cpu -1, which Linux refuses (EINVAL), and so does the model;
#  3. papi_command_line with `:cpu=N` (PAPI's way to place an uncore event):
#     QPI clockticks on socket 0 and TxL_FLITS_G0.DATA on socket 1 (driven
#     one flit per QCLK cycle by an event trace) count, and each printed
#     count is exactly what the model's counter advanced between PAPI's
#     enable and its read (the served driver's register accesses in the log),
#     and the clockticks are the QCLK cycles of that simulated interval.
# papi_command_line's workload computes without sleeping, so the virtual
# clock would not move while it counts; the run uses --clock wall=0.001
# (1 ms of simulated time per wall second): the counts vary from run to run,
# the equalities do not.
# Usage: papi_e2e.sh PMONSIM
set -uo pipefail
pmonsim=$1
for t in papi_native_avail papi_command_line papi_component_avail; do
  command -v "$t" >/dev/null || { echo "SKIP: $t is not installed (Debian package papi-tools)"; exit 77; }
done
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; for f in out err; do [ -f "$work/$f" ] && { echo "--- $f"; tail -40 "$work/$f"; }; done; exit 1; }
checked=0

# 1. the component and the native events
"$pmonsim" exec --sockets 2 --report none -- papi_component_avail > "$work/out" 2> "$work/err" ||
  fail "papi_component_avail"
sed -n '/^Active components:/,$p' "$work/out" | grep -A6 "perf_event_uncore" | tr -s ' \n' ' ' |
  grep -q "PMUs supported: ivbep_unc_cbo0, ivbep_unc_cbo1, ivbep_unc_cbo2, ivbep_unc_cbo3, ivbep_unc_cbo4 ivbep_unc_cbo5, ivbep_unc_cbo6, ivbep_unc_cbo7, ivbep_unc_ha0, ivbep_unc_imc0 ivbep_unc_imc1, ivbep_unc_imc2, ivbep_unc_imc3, ivbep_unc_pcu, ivbep_unc_qpi0 ivbep_unc_qpi1, ivbep_unc_ubo, ivbep_unc_r2pcie, ivbep_unc_r3qpi0 ivbep_unc_r3qpi1, ivbep_unc_irp" ||
  fail "perf_event_uncore is not active with the twenty-one served PMUs"
checked=$((checked + 1))
pmus() { grep -E '^\| [a-z0-9_]+::' "$work/out" | sed -E 's/^\| ([a-z0-9_]+)::.*/\1/' | grep _unc_ | sort -u | tr '\n' ' '; }
"$pmonsim" exec --sockets 2 --report none -- papi_native_avail > "$work/out" 2> "$work/err" ||
  fail "papi_native_avail"
[ "$(pmus)" = "ivbep_unc_cbo0 ivbep_unc_cbo1 ivbep_unc_cbo2 ivbep_unc_cbo3 ivbep_unc_cbo4 ivbep_unc_cbo5 ivbep_unc_cbo6 ivbep_unc_cbo7 ivbep_unc_ha0 ivbep_unc_imc0 ivbep_unc_imc1 ivbep_unc_imc2 ivbep_unc_imc3 ivbep_unc_irp ivbep_unc_pcu ivbep_unc_qpi0 ivbep_unc_qpi1 ivbep_unc_r2pcie ivbep_unc_r3qpi0 ivbep_unc_r3qpi1 ivbep_unc_ubo " ] ||
  fail "ivb-ep uncore PMUs: '$(pmus)'"
for e in ivbep_unc_qpi0::UNC_Q_TXL_FLITS_G0 ivbep_unc_qpi1::UNC_Q_CLOCKTICKS ivbep_unc_ubo::UNC_U_EVENT_MSG \
         ivbep_unc_r2pcie::UNC_R2_RING_AD_USED ivbep_unc_imc0::UNC_M_CAS_COUNT ivbep_unc_ha0::UNC_H_REQUESTS \
         ivbep_unc_r3qpi1::UNC_R3_CLOCKTICKS ivbep_unc_cbo7::UNC_C_LLC_VICTIMS; do
  grep -qE "^\| $e +\|" "$work/out" || fail "papi_native_avail lists no $e"
  checked=$((checked + 1))
done
grep -A3 -E "^\| ivbep_unc_qpi0::UNC_Q_TXL_FLITS_G0 " "$work/out" | grep -q ":DATA " || fail "no :DATA umask"
checked=$((checked + 2))
"$pmonsim" exec --qpi-ports 3 --report none -- papi_native_avail > "$work/out" 2> "$work/err" ||
  fail "papi_native_avail with 3 QPI ports"
[ "$(pmus)" = "ivbep_unc_cbo0 ivbep_unc_cbo1 ivbep_unc_cbo2 ivbep_unc_cbo3 ivbep_unc_cbo4 ivbep_unc_cbo5 ivbep_unc_cbo6 ivbep_unc_cbo7 ivbep_unc_ha0 ivbep_unc_imc0 ivbep_unc_imc1 ivbep_unc_imc2 ivbep_unc_imc3 ivbep_unc_irp ivbep_unc_pcu ivbep_unc_qpi0 ivbep_unc_qpi1 ivbep_unc_qpi2 ivbep_unc_r2pcie ivbep_unc_r3qpi0 ivbep_unc_r3qpi1 ivbep_unc_r3qpi2 ivbep_unc_ubo " ] ||
  fail "ivb-ep with 3 ports: '$(pmus)'"
# snb-ep: libpfm4's snbep tables list every SNB-EP uncore PMU without
# checking its sysfs type, so only the served ones are checked here.
"$pmonsim" exec --cpu snb-ep --report none -- papi_native_avail > "$work/out" 2> "$work/err" ||
  fail "papi_native_avail on snb-ep"
for e in snbep_unc_qpi0::UNC_Q_TXL_FLITS_G0 snbep_unc_qpi1::UNC_Q_CLOCKTICKS snbep_unc_ubo::UNC_U_EVENT_MSG \
         snbep_unc_r2pcie::UNC_R2_RING_AD_USED snbep_unc_imc0::UNC_M_CAS_COUNT; do
  grep -qE "^\| $e +\|" "$work/out" || fail "papi_native_avail (snb-ep) lists no $e"
  checked=$((checked + 1))
done

# 2. no CPU: the kernel's EINVAL for a per-CPU-only event opened for no CPU
type=$("$pmonsim" exec --sockets 2 --report none -- cat /sys/devices/uncore_qpi_0/type 2> "$work/err") ||
  fail "reading uncore_qpi_0's type"
"$pmonsim" exec --sockets 2 --log "$work/log" --report none -- \
  papi_command_line ivbep_unc_qpi0::UNC_Q_TXL_FLITS_G0:DATA > "$work/out" 2> "$work/err"
grep -q "Failed adding: ivbep_unc_qpi0::UNC_Q_TXL_FLITS_G0:DATA" "$work/out" || fail "adding without a CPU did not fail"
grep -q "because: Invalid argument" "$work/out" || fail "adding without a CPU: not EINVAL"
grep -q "perf_event_open type $type cpu -1 pid -1 config 0x200: Invalid argument" "$work/log" ||
  fail "the log shows no EINVAL open of uncore_qpi_0 (type $type) for cpu -1"
checked=$((checked + 3))

# 3. counting with :cpu=N
{
  echo "time,socket,box,event,umask,ext,count,repeat"
  echo "0,1,qpi0,TxL_FLITS_G0.DATA,,,1,1000000000"
} > "$work/events.csv"
clk=ivbep_unc_qpi0::UNC_Q_CLOCKTICKS:cpu=0
flits=ivbep_unc_qpi0::UNC_Q_TXL_FLITS_G0:DATA:cpu=16
"$pmonsim" exec --sockets 2 --clock wall=0.001 --trace "$work/events.csv" --log "$work/log" --report none -- \
  papi_command_line "$clk" "$flits" > "$work/out" 2> "$work/err" || fail "papi_command_line with :cpu="
papi_count() { awk -v e="$1" '$1 == e && $2 == ":" { print $3 }' "$work/out"; }
# From the log, for the QPI port 0 PMON function on BUS and its CTL0 enable
# value: the counter (0xa0/0xa4) read just before the last enable, the first
# read after it, their difference, and the simulated time between them (ns).
counter_delta() {
  awk -v f="$1:08.2" -v en="$2" '
    function val(line,  n, w, s, i, v) {  # the hex value ending the line (mawk has no strtonum)
      n = split(line, w, " "); s = substr(w[n], 3); v = 0
      for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
      return v }
    index($0, "perf: config read " f " 0xa0/4") { lo = val($0); t = $1; next }
    index($0, "perf: config read " f " 0xa4/4") { v = val($0) * 4294967296 + lo
                                                  if (armed) { after = v; t1 = t; armed = 0; done = 1 } else before = v; next }
    index($0, "perf: config write " f " 0xd8/4 <- " en) { base = before; t0 = $1; armed = 1; done = 0 }
    END { if (done) printf "%d %.3f\n", after - base, t1 - t0 }' "$work/log"
}
read -r clk_delta clk_ns <<< "$(counter_delta 7f 0x400014)"
read -r flit_delta flit_ns <<< "$(counter_delta ff 0x400200)"
got=$(papi_count "$clk")
[ -n "$got" ] && [ "$got" -gt 0 ] || fail "$clk counted '$got'"
[ "$got" = "$clk_delta" ] || fail "$clk: PAPI printed $got, the model's counter advanced $clk_delta"
# 1 GHz QCLK: one tick per simulated ns between the enable and the read (the
# model runs whole cycles: within one).
awk -v c="$got" -v ns="$clk_ns" 'BEGIN { d = c - ns; exit !(d < 1.5 && d > -1.5) }' ||
  fail "$clk: $got ticks in $clk_ns ns of simulated time"
got=$(papi_count "$flits")
[ -n "$got" ] && [ "$got" -gt 0 ] || fail "$flits counted '$got'"
[ "$got" = "$flit_delta" ] || fail "$flits: PAPI printed $got, the model's counter advanced $flit_delta"
awk -v c="$got" -v ns="$flit_ns" 'BEGIN { d = c - ns; exit !(d < 1.5 && d > -1.5) }' ||
  fail "$flits: $got flits in $flit_ns ns of one flit per QCLK cycle"
grep -q "perf: open uncore_qpi_0 socket 1 config 0x200" "$work/log" || fail ":cpu=16 did not count socket 1"
checked=$((checked + 7))
echo "PASS: $checked checks"
