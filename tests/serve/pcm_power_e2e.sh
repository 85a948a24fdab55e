#!/usr/bin/env bash
# Debian's pcm-power, unmodified, under `pmonsim exec` on a 2-socket ivb-ep:
# its PCU figures are the model's counts over one 10 ms interval of simulated
# time (decisions.md B10-B12). From 1 ms, socket 0 runs at 2.4 GHz with 6
# cores in C0 for 4 M PCU cycles (5 ms) and 2 cores in C3 for 2 M; socket 1
# holds 8 cores in C6 for 2 M cycles. pcm-power's formulas:
#   Freq band k cycles (profile 0, bands 1200/2000/4000 MHz) = FREQ_BANDk_CYCLES / PCUClocks;
#   core C0/C3/C6-state residency (profile 1) = POWER_STATE_OCCUPANCY (occ_sel 1/2/3) / PCUClocks,
#   the average number of cores in the state.
# Usage: pcm_power_e2e.sh PMONSIM
set -uo pipefail
pmonsim=$1
pcm_power=$(command -v pcm-power || echo /usr/sbin/pcm-power)
[ -x "$pcm_power" ] || { echo "SKIP: pcm-power is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; [ -f "$work/out" ] && grep -E "^S[01];|PCU|band" "$work/out"; exit 1; }
cat > "$work/pcu.csv" <<'EOT'
time,socket,box,event,umask,count,repeat
1000000,0,pcu,FREQ_BAND0_CYCLES,,24,4000000
1000000,0,pcu,POWER_STATE_OCCUPANCY,CORES_C0,6,4000000
1000000,0,pcu,POWER_STATE_OCCUPANCY,CORES_C3,2,2000000
1000000,1,pcu,POWER_STATE_OCCUPANCY,CORES_C6,8,2000000
EOT
checked=0
line() {  # profile socket: pcm-power's PCU line for the socket
  grep -E "^S$2; PCUClocks: " "$work/out.$1" | head -1
}
for p in 0 1; do
  timeout 100 "$pmonsim" exec --sockets 2 --trace "$work/pcu.csv" --log "$work/log.$p" --report none -- \
    "$pcm_power" 0.01 -i=1 -p $p > "$work/out.$p" 2>&1 || { cp "$work/out.$p" "$work/out"; fail "pcm-power -p $p"; }
done
grep -q "Freq bands \[0/1/2\]: 1200 MHz; 2000 MHz; 4000 MHz" "$work/out.0" || { cp "$work/out.0" "$work/out"; fail "no frequency bands"; }
# The band filter pcm-power writes (through socket 0's last CPU, 15): 12, 20 and
# 40 (100 MHz steps) in bytes 0-2.
grep -qE "wrmsr cpu 15 0xc34 <- 0x28140c" "$work/log.0" || fail "pcm-power did not write the bands 1.2/2.0/4.0 GHz"
want=("S0; PCUClocks: 8000000; Freq band 0/1/2 cycles: 50.00%; 50.00%; 0.00%"
      "S1; PCUClocks: 8000000; Freq band 0/1/2 cycles: 0.00%; 0.00%; 0.00%"
      "S0; PCUClocks: 8000000; core C0/C3/C6-state residency: 3.00; 0.50; 0.00"
      "S1; PCUClocks: 8000000; core C0/C3/C6-state residency: 0.00; 0.00; 2.00")
for k in 0 1 2 3; do
  p=$(( k / 2 )) s=$(( k % 2 ))
  got=$(line $p $s)
  [ "$got" = "${want[$k]}" ] || { cp "$work/out.$p" "$work/out"; fail "pcm-power -p $p socket $s: '$got', the model's counts give '${want[$k]}'"; }
  checked=$(( checked + 1 ))
done
# pcm's main screen divides the residency counters (0x3FC/0x3FD, TSC ticks;
# decisions.md B12) by the TSC: socket 0 has some core in C3 for 2.5 ms of the
# 10 ms, socket 1 some core in C6 as long: 12.50 % each over the 32 CPUs.
timeout 100 "$pmonsim" exec --sockets 2 --trace "$work/pcu.csv" --report none -- \
  env PCM_NO_PERF=1 "${pcm_power%-power}" 0.01 -i=1 -nc > "$work/out" 2>&1 || fail "pcm"
grep -q "C3 core residency: 12.50 %; C6 core residency: 12.50 %" "$work/out" ||
  fail "pcm's C3 and C6 core residencies are not 12.50 %"
checked=$(( checked + 1 ))
# Profile 1 selects its sub-counters with occ_sel, as the PCU needs.
grep -qE "wrmsr cpu 15 0xc3[0-3] <- 0x40[48c]080" "$work/log.1" || fail "pcm-power -p 1 programmed no occupancy event with occ_sel"
echo "PASS: $(( checked + 3 )) checks"
