#!/usr/bin/env bash
# Debian's Intel PCM, unmodified, under `pmonsim exec` on a 2-socket ivb-ep,
# in each of its modes: PCM_NO_PERF=1 (core PMU through the MSRs), the
# default (core PMU through perf_event_open: the served "cpu" PMU, decisions.md
# S19), and PCM_USE_UNCORE_PERF=1 (the uncore through the served uncore_imc,
# uncore_qpi and uncore_ubox PMUs too; QPI_RATE_STATUS is then out of its
# reach, so pcm first measures the link speed over 10 s of simulated time,
# and that mode's traces start 10 s later). In every mode it must find both
# sockets, both QPI ports and the memory controller of each, measure one
# 10 ms interval of simulated time, and print per-link QPI traffic and
# per-socket memory traffic that are the model's counts for that interval,
# through PCM's own formulas:
#   incoming bytes = 64 x (RxL_FLITS_G1.DRS_DATA + RxL_FLITS_G2.NCB_DATA) / 8
#   outgoing bytes = 8 x TxL_FLITS_G0.DATA|NON_DATA (through a utilization
#                    ratio in floating point: it may come out 1 byte short)
# printed with PCM's unit_format (up to 9999 as is, then n/1000 "K", ...);
#   memory READ / WRITE (GB) = 64 x CAS_COUNT.RD / .WR summed over the
#                    socket's channels / 1e9, printed with two decimals.
# An event trace drives the channels' CAS commands (1..4 ms).
# The trace puts known traffic on every link inside the interval (1..9 ms);
# the model's counters (the report) must hold exactly that traffic, and PCM's
# figures must be those counts. Through perf, its core metrics must be the
# core PMU model's: every CPU busy at the 2.8 GHz base clock with an IPC of 1.
# Usage: pcm_e2e.sh PMONSIM
set -uo pipefail
pmonsim=$1
pcm=$(command -v pcm || echo /usr/sbin/pcm)
[ -x "$pcm" ] || { echo "SKIP: pcm is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mode=""
fail() {
  echo "FAIL${mode:+ ($mode)}: $*"
  [ -f "$work/out" ] && sed -n '/Processor information/,$p' "$work/out" | head -120
  exit 1
}

# Traffic per link: "socket port dir class count"; DRS and NCB packets are 9
# flits (8 data), HOM0 and SNP 1 flit. Each stream is spread evenly over
# 1..9 ms of simulated time.
cat > "$work/streams" <<'EOT'
0 0 rx DRS 120
0 0 rx NCB 20
0 1 rx DRS 1500
0 0 tx HOM0 300
0 1 tx DRS 40
1 1 rx NCB 250
1 0 tx SNP 700
EOT
# Memory traffic: "socket channel sub-event cycles", one CAS per DCLK cycle
# (800 MHz) from 1 ms on.
cat > "$work/cas" <<'EOT'
0 0 RD_REG 1000000
0 1 RD_UNDERFILL 250000
0 2 WR_WMM 500000
1 3 RD_REG 2000000
1 0 WR_RMM 1500000
EOT
# The traces, starting `offset` ns later.
make_traces() {
  awk -v off="$1" 'BEGIN { print "time,socket,port,dir,mc" }
       { for (i = 0; i < $5; ++i) printf "%.0f,%d,%d,%s,%s\n", off + 1000000 + int(i * 8000000 / $5) + NR, $1, $2, $3, $4 }' \
      "$work/streams" | { read -r header; echo "$header"; sort -t, -k1,1n; } > "$work/qpi.csv"
  awk -v off="$1" 'BEGIN { print "time,socket,box,event,umask,count,repeat" }
       { printf "%.0f,%d,imc%d,CAS_COUNT,%s,1,%d\n", off + 1000000, $1, $2, $3, $4 }' "$work/cas" > "$work/mem.csv"
}
declare -A mem_rd mem_wr
for s in 0 1; do mem_rd[$s]=0; mem_wr[$s]=0; done
while read -r s ch sub n; do
  case $sub in RD_*) mem_rd[$s]=$(( mem_rd[$s] + n )) ;; *) mem_wr[$s]=$(( mem_wr[$s] + n )) ;; esac
done < "$work/cas"

# What the trace puts on each link: data flits received, flits sent.
declare -A rx_data tx_flits
for s in 0 1; do for p in 0 1; do rx_data[$s$p]=0; tx_flits[$s$p]=0; done; done
while read -r s p dir mc n; do
  case $mc in DRS|NCB) size=9 data=8 ;; *) size=1 data=0 ;; esac
  if [ "$dir" = rx ]; then rx_data[$s$p]=$(( rx_data[$s$p] + n * data ))
  else tx_flits[$s$p]=$(( tx_flits[$s$p] + n * size )); fi
done < "$work/streams"

# One run of pcm with the environment given ("-" for none); the QPI tables checked.
run_pcm() {
  mode=$1
  [ "$mode" = - ] && mode=default
  rm -f "$work/out" "$work/log" "$work/report.csv"
  local env=()
  [ "$1" = - ] || env=("$1")
  make_traces "${2:-0}"
  timeout 100 "$pmonsim" exec --sockets 2 --trace "$work/qpi.csv" --trace "$work/mem.csv" --log "$work/log" \
    --report csv --report-file "$work/report.csv" -- env "${env[@]}" "$pcm" 0.01 -i=1 -nc > "$work/out" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "pmonsim exec ... pcm exited with $rc"

  grep -q '^Num sockets: 2$' "$work/out" || fail "pcm did not count 2 sockets"
  [ "$(grep -c '2 QPI ports detected' "$work/out")" = 2 ] || fail "pcm did not find 2 QPI ports on each socket"
  grep -q 'Max QPI link 1 speed: 16.0 GBytes/second (8.0 GT/second)' "$work/out" || fail "QPI link speed"
  # The interval is 10 ms of simulated time: 28 M ticks of the 2.8 GHz TSC.
  grep -q 'Time (TSC): *28 Mticks' "$work/out" || fail "the interval is not 10 ms of simulated time"
  grep -q 'interposer in .*/pcm: [1-9][0-9]* cpuid' "$work/log" || fail "pcm's CPUID sites were not trapped"

  # PCM's unit_format.
  fmt() {
    local n=$1
    if [ "$n" -le 9999 ]; then echo "$n"
    elif [ "$n" -le 9999999 ]; then echo "$(( n / 1000 )) K"
    elif [ "$n" -le 9999999999 ]; then echo "$(( n / 1000000 )) M"
    else echo "$(( n / 1000000000 )) G"; fi
  }
  # A counter's value in the final report (pcm zeroes the controls at exit, not the counters).
  counter() { awk -F, -v s="$1" -v b="qpi$2" -v c="$3" '$1 == s && $2 == b && $3 == c { print $6 }' "$work/report.csv"; }
  # The row of socket $2 in the table whose title matches $1, up to the '|'.
  row() {
    awk -v title="$1" -v s="$2" 'index($0, title) { on = 1 } on && $1 == "SKT" && $2 == s { sub(/\|.*/, ""); $1 = $1; print; exit }' \
      "$work/out"
  }

  checked=0
  for s in 0 1; do
    in_row="SKT $s" out_rows=("SKT $s")
    for p in 0 1; do
      drs=$(counter "$s" "$p" 0) ncb=$(counter "$s" "$p" 1) txf=$(counter "$s" "$p" 2)
      [ -n "$drs" ] && [ -n "$ncb" ] && [ -n "$txf" ] || fail "no qpi$p counters for socket $s in the report"
      [ $(( drs + ncb )) -eq "${rx_data[$s$p]}" ] ||
        fail "socket $s qpi$p: the model counted $(( drs + ncb )) data flits received, the trace has ${rx_data[$s$p]}"
      [ "$txf" -eq "${tx_flits[$s$p]}" ] ||
        fail "socket $s qpi$p: the model counted $txf flits sent, the trace has ${tx_flits[$s$p]}"
      in_row="$in_row $(fmt $(( 64 * ((drs + ncb) / 8) )))"
      # Outgoing: exact, or one byte short; every variant of the row is accepted.
      next=()
      for r in "${out_rows[@]}"; do
        next+=("$r $(fmt $(( 8 * txf )))")
        [ "$txf" -gt 0 ] && next+=("$r $(fmt $(( 8 * txf - 1 )))")
      done
      out_rows=("${next[@]}")
      checked=$(( checked + 1 ))
    done
    got=$(row "data traffic coming to CPU/socket" "$s")
    [ "$got" = "$in_row" ] || fail "incoming QPI data, socket $s: pcm printed '$got', the model's counts give '$in_row'"
    got=$(row "traffic outgoing from CPU/socket" "$s")
    ok=0
    for r in "${out_rows[@]}"; do [ "$got" = "$r" ] && ok=1; done
    [ $ok = 1 ] || fail "outgoing QPI traffic, socket $s: pcm printed '$got', the model's counts give '${out_rows[0]}'"
    echo "socket $s: incoming '$in_row', outgoing '$got'"
  done
  total=$(( 8 * (rx_data[00] + rx_data[01] + rx_data[10] + rx_data[11]) ))
  grep -q "^Total QPI incoming data traffic: *$(fmt $total) " "$work/out" ||
    fail "total incoming QPI data traffic is not $(fmt $total)"
  echo "ok ($mode): pcm's QPI tables equal the model's counts on $checked links"

  # Memory: the model's CAS counts are the trace's (where pcm programs the
  # channels itself: counter 0 CAS_COUNT.RD, counter 1 CAS_COUNT.WR on each;
  # through perf the served driver picks the counters), and pcm's GB are
  # them x 64. (Through perf pcm says "0 memory controllers" and counts the
  # 4 channels.)
  grep -q "Socket 0: [01] memory controllers detected with total number of 4 channels" "$work/out" ||
    fail "pcm did not find the memory controller's 4 channels"
  imc() { awk -F, -v s="$1" -v c="$2" '$1 == s && $2 ~ /^imc/ && $3 == c { n += $6 } END { print n + 0 }' "$work/report.csv"; }
  for s in 0 1; do
    rd=${mem_rd[$s]} wr=${mem_wr[$s]}
    if [ "$mode" != PCM_USE_UNCORE_PERF=1 ]; then
      [ "$(imc "$s" 0)" -eq "$rd" ] || fail "socket $s: the model counted $(imc "$s" 0) CAS reads, the trace has $rd"
      [ "$(imc "$s" 1)" -eq "$wr" ] || fail "socket $s: the model counted $(imc "$s" 1) CAS writes, the trace has $wr"
    fi
    want=$(awk -v r="$rd" -v w="$wr" -v s="$s" 'BEGIN { printf "SKT %d %.2f %.2f", s, r * 64 / 1e9, w * 64 / 1e9 }')
    got=$(awk -v s="$s" '/MEM \(GB\)->/ { on = 1 } on && $1 == "SKT" && $2 == s { print $1, $2, $3, $4; exit }' "$work/out")
    [ "$got" = "$want" ] || fail "memory traffic, socket $s: pcm printed '$got', the model's CAS counts give '$want'"
    echo "socket $s: memory '$got' (GB read, written)"
  done
}


run_pcm PCM_NO_PERF=1
grep -q "Successfully programmed on-core PMU using Linux perf" "$work/out" &&
  fail "pcm used perf although PCM_NO_PERF=1"

# The default: the core PMU through perf_event_open, per CPU (pid -1) and
# read as groups. Each CPU counted the 10 ms interval at 2.8 GHz: 28 M
# cycles, ref-cycles and instructions, 896 M over the 32 CPUs.
run_pcm -
grep -q "Successfully programmed on-core PMU using Linux perf" "$work/out" || fail "pcm did not use perf"
for e in cycles instructions ref-cycles; do
  n=$(grep -c "perf: open cpu type 0 .* pid -1 cpu [0-9]* ($e)" "$work/log")
  [ "$n" -ge 32 ] || fail "$n per-CPU $e events opened, not one per CPU (32)"
done
grep -q "perf_event_open .*: " "$work/log" && fail "a perf_event_open failed: $(grep -m1 'perf_event_open .*: ' "$work/log")"
for s in 0 1; do
  got=$(awk -v s="$s" '$1 == "SKT" && $2 == s && NF > 10 { print $3, $4, $5, $6; exit }' "$work/out")
  [ "$got" = "1.00 1.00 1.00 1.00" ] || fail "socket $s EXEC IPC FREQ AFREQ are '$got', not 1.00 each"
done
grep -q "Instructions retired: *896 M ; Active cycles: *896 M ; Time (TSC): *28 Mticks" "$work/out" ||
  fail "instructions and cycles are not 896 M (32 CPUs x 10 ms x 2.8 GHz)"
echo "ok (default): EXEC, IPC, FREQ and AFREQ 1.00 on both sockets; 896 M instructions and cycles"

# PCM_USE_UNCORE_PERF=1: pcm finds the served uncore_imc PMUs and counts the
# uncore through perf; its 10 s link-speed loop comes first, so the traces
# start 10 s later.
run_pcm PCM_USE_UNCORE_PERF=1 10000000000
grep -q "using Linux perf interface to program uncore PMUs" "$work/out" ||
  fail "pcm did not count the uncore through the served perf PMUs"
grep -q "Successfully programmed on-core PMU using Linux perf" "$work/out" || fail "pcm did not use perf for the core"
grep -q "perf: open uncore_imc_3 socket 1 config 0xc04 " "$work/log" ||
  fail "pcm did not open CAS_COUNT.WR on uncore_imc_3 of socket 1"
echo "ok (PCM_USE_UNCORE_PERF=1): pcm counted the uncore through the served uncore_imc/qpi/ubox PMUs"
