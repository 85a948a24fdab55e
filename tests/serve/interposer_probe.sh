#!/usr/bin/env bash
# What a program sees under `pmonsim exec` (interposer_probe.cpp prints it):
# the msr driver's and sysfs's rules, CPUID and affinity for the modeled CPUs,
# and sleeps, clocks and the TSC on the virtual clock; then the wall clock.
# Expected values are those of the served machine: 2-socket ivb-ep, 16 CPUs
# a socket (8 cores x 2 threads, x2APIC = socket << 4 | core << 1 | thread),
# TSC at the E5-2680 v2's 2.8 GHz, UCLK 2 GHz.
# Usage: interposer_probe.sh PMONSIM PROBE
set -uo pipefail
pmonsim=$1 probe=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$pmonsim" exec --sockets 2 --report csv --report-file "$work/report.csv" -- "$probe" > "$work/out" || fail "probe failed"
cat > "$work/expected" <<'EOT'
msr_pwrite 8
msr_pread 8 value 0x400000
msr_short -1 errno 22
msr_missing -1 errno 5
msr_lseek 0xc10
msr_read16 16 0x400000 0x400000 pos 0xc10
msr_seek_end -1 errno 22
msr_nocpu -1 errno 2
config_pread 4 id 0x0e328086
config_past_end 0
config_read64 64 pos 64 class 1101
nprocs 32
affinity_count 32
unpinned_cpu 0 vendor GenuineIntel family 6 model 62 apic 0 x2apic 0
setaffinity 0
pinned19_cpu 19 vendor GenuineIntel family 6 model 62 apic 22 x2apic 22
setaffinity_none -1 errno 22
thread3_cpu 3 vendor GenuineIntel family 6 model 62 apic 6 x2apic 6
after_thread_cpu 19 vendor GenuineIntel family 6 model 62 apic 22 x2apic 22
nanosleep_ns 1500000
usleep_ns 250000
clock_nanosleep_abs_ns 700000
select_ret 0
select_ns 3000000
poll_ret 0
poll_ns 2000000
sleep_gettimeofday_us 2000000
sleep_for_realtime_ns 40000
rdtsc_per_ms 2800000
rdtscp_monotonic 1
EOT
diff -u "$work/expected" "$work/out" || fail "what the probe saw differs"
# Simulated time is the sum of the sleeps: 2008.49 ms = 4016980000 UCLK cycles.
grep -q '^0,ubox,0,0x00400000,.*,4016980000,2008490000,,,,,$' "$work/report.csv" || { head -3 "$work/report.csv"; fail "run length"; }

# --clock wall=SCALE: simulated time follows the wall clock (sleeps are real).
start=$(date +%s%N)
"$pmonsim" exec --clock wall=0.5 --report csv --report-file "$work/wall.csv" -- sleep 0.2 || fail "wall clock run"
elapsed=$(( $(date +%s%N) - start ))
cycles=$(sed -n 2p "$work/wall.csv" | cut -d, -f11)
# At least 0.1 s of simulated time (0.2 s of wall time at half speed), at most half the run's wall time.
[ "$cycles" -ge 200000000 ] && [ "$cycles" -le "$elapsed" ] ||
  fail "--clock wall=0.5: $cycles UCLK cycles after $elapsed ns"
echo "ok: interposer probe"
