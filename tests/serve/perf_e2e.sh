#!/usr/bin/env bash
# Debian's perf, unmodified, under `pmonsim exec` on a 2-socket machine:
#  1. sysfs: the uncore PMUs as Linux's uncore driver names and describes
#     them (type, cpumask of each socket's first CPU, format/ per box and CPU);
#  2. `perf stat -a --per-socket` of QPI, UBox (general and fixed) and R2PCIe
#     events around `sleep 0.001`: each socket's count is what the trace drove
#     into the model in that millisecond, and what the model's report of the
#     same run shows in the counter perf programmed; `perf stat -a` sums them;
#  3. `perf stat` of event groups ({...}) per socket;
#  4. perf_event_open call by call (pmonsim_perf_probe): ENOENT for a type the
#     machine does not list, EINVAL for per-task, sampling and exclude_*
#     events, read()'s layout with read_format, the enable/disable/reset
#     ioctls, an event opened on a CPU outside cpumask counting its socket,
#     a count that goes on across the 48-bit counter's wrap, and a group read
#     at once (PERF_FORMAT_GROUP) that must fit the box and its socket.
# perf enables its events before the workload starts and disables them after
# it exits; the virtual clock moves only by the workload's 1 ms sleep, so the
# events count exactly simulated 0..1 ms, and the trace's traffic lies inside.
# Usage: perf_e2e.sh PMONSIM PERF_PROBE
set -uo pipefail
pmonsim=$1
probe=$2
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; for f in out err; do [ -f "$work/$f" ] && { echo "--- $f"; cat "$work/$f"; }; done; exit 1; }
checked=0

# 1. sysfs
"$pmonsim" exec --sockets 2 --report none -- sh -c '
  ls /sys/bus/event_source/devices
  for p in uncore_ubox uncore_r2pcie uncore_qpi_0 uncore_qpi_1; do
    d=/sys/bus/event_source/devices/$p
    echo "$p type $(cat $d/type) cpumask $(cat $d/cpumask)"
    for f in $d/format/*; do echo "$p format $(basename $f) $(cat $f)"; done
  done' > "$work/out" 2> "$work/err" || fail "listing sysfs under exec"
have() { grep -qxF "$1" "$work/out" || fail "sysfs: no line '$1'"; checked=$((checked + 1)); }
lacks() { ! grep -qxF "$1" "$work/out" || fail "sysfs: unexpected line '$1'"; checked=$((checked + 1)); }
for p in uncore_ubox uncore_r2pcie uncore_qpi_0 uncore_qpi_1; do have "$p"; done
lacks "uncore_qpi_2"
have "uncore_ubox type 50 cpumask 0,16"
have "uncore_qpi_1 type 53 cpumask 0,16"
have "uncore_ubox format thresh config:24-28"
lacks "uncore_ubox format inv config:23"   # ivb-ep: no invert
have "uncore_r2pcie format thresh config:24-31"
have "uncore_qpi_0 format event config:0-7,21"
have "uncore_qpi_0 format match_rds config1:48-51"
have "uncore_qpi_0 format mask_dnid config2:13-17"
"$pmonsim" exec --cpu snb-ep --qpi-ports 2 --report none -- cat /sys/devices/uncore_r2pcie/format/inv \
  /sys/devices/uncore_ubox/format/inv > "$work/out" 2> "$work/err" || fail "snb-ep has inv"
[ "$(tr '\n' ' ' < "$work/out")" = "config:23 config:23 " ] || fail "snb-ep inv formats"
"$pmonsim" exec --sockets 2 --qpi-ports 3 --report none -- cat /sys/devices/uncore_qpi_2/type \
  > "$work/out" 2> "$work/err" || fail "ivb-ep with 3 QPI ports has uncore_qpi_2"
checked=$((checked + 1))

# 2. perf stat
# QPI: data packets sent on port 0 of each socket; UBox MSIs and R2PCIe ring
# use as events; all within 0.1..0.25 ms.
{
  echo "time,socket,port,dir,mc"
  awk 'BEGIN { for (i = 0; i < 100; ++i) printf "%d,0,0,tx,DRS\n", 100000 + i * 1000
               for (i = 0; i < 40; ++i) printf "%d,1,0,tx,DRS\n", 100500 + i * 1000 }' | sort -t, -k1,1n
} > "$work/qpi.csv"
cat > "$work/events.csv" <<'EOT'
time,socket,box,event,umask,ext,count,repeat
200000,0,ubox,EVENT_MSG.MSI_RCVD,,,1,37
200000,1,ubox,EVENT_MSG.MSI_RCVD,,,1,11
250000,0,r2pcie,RING_AD_USED.CW_VR0_EVEN,,,1,1234
250000,1,r2pcie,RING_AD_USED.CW_VR0_EVEN,,,1,321
EOT
events=(-e uncore_qpi_0/event=0x0,umask=0x2/ -e uncore_ubox/event=0x42,umask=0x2/ -e uncore_ubox/event=0xff/
        -e uncore_r2pcie/event=0x7,umask=0x1/)
"$pmonsim" exec --sockets 2 --trace "$work/qpi.csv" --trace "$work/events.csv" --log "$work/log" \
  --report csv --report-file "$work/report.csv" -- perf stat -a -x, --per-socket "${events[@]}" -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat --per-socket under exec"
# perf's count for an event on a socket ("S0") (event names hold commas: found
# whole), and the report's value of the counter programmed with `control`.
perf_count() { awk -F, -v s="$1" -v e=",$2," '$1 == s && index($0, e) { print $3 }' "$work/err"; }
report() { awk -F, -v s="$1" -v b="$2" -v c="$3" '$1 == s && $2 == b && $4 == c { print $6 }' "$work/report.csv"; }
uclk() { awk -F, -v s="$1" '$1 == s { print $11; exit }' "$work/report.csv"; }
expect() {  # socket event expected
  local got
  got=$(perf_count "S$1" "$2")
  [ "$got" = "$3" ] || fail "$2 on socket $1: perf printed '$got', expected $3"
  checked=$((checked + 1))
}
for s in 0 1; do
  qpi=$(report "$s" qpi0 0x00000200)
  [ -n "$qpi" ] && [ "$qpi" -gt 0 ] || fail "the report shows no QPI counter with TxL_FLITS_G0.DATA on socket $s"
  expect "$s" uncore_qpi_0/event=0x0,umask=0x2/ "$qpi"
  expect "$s" uncore_ubox/event=0xff/ "$(uclk "$s")"
done
expect 0 uncore_ubox/event=0x42,umask=0x2/ 37
expect 1 uncore_ubox/event=0x42,umask=0x2/ 11
expect 0 uncore_r2pcie/event=0x7,umask=0x1/ 1234
expect 1 uncore_r2pcie/event=0x7,umask=0x1/ 321
expect 0 uncore_ubox/event=0xff/ 2000000   # 1 ms of a 2 GHz UCLK
# The QPI packets drive flits in proportion: socket 0 sent 100, socket 1 40.
[ $(( $(perf_count S0 uncore_qpi_0/event=0x0,umask=0x2/) * 40 )) = \
  $(( $(perf_count S1 uncore_qpi_0/event=0x0,umask=0x2/) * 100 )) ] || fail "QPI flits are not 100:40"
# Both sockets' counters ran the whole millisecond.
awk -F, '/,uncore_/ && ($(NF - 3) != 1000000 || $(NF - 2) != "100.00") { bad = 1 } END { exit bad }' "$work/err" ||
  fail "an event did not run for all of the 1 ms"
grep -q "perf: config write 7f:08.2 0xf4/4 <- 0x10003" "$work/log" || fail "no box init (BOX_CTL 0x10003) in the log"
grep -q "perf: config write 7f:08.2 0xd8/4 <- 0x400200" "$work/log" || fail "no CTL0 = config | en in the log"
checked=$((checked + 2))
"$pmonsim" exec --sockets 2 --trace "$work/qpi.csv" --report none -- perf stat -a -x, \
  -e uncore_qpi_0/event=0x0,umask=0x2/ -- sleep 0.001 > "$work/out" 2> "$work/err" || fail "perf stat -a under exec"
total=$(awk -F, 'index($0, ",uncore_qpi_0/event=0x0,umask=0x2/,") { print $1 }' "$work/err")
[ "$total" = "$(( $(report 0 qpi0 0x00000200) + $(report 1 qpi0 0x00000200) ))" ] ||
  fail "perf stat -a printed '$total', not the sum of both sockets"
checked=$((checked + 1))

# 3. groups: perf reads each group at once; the counts are those of step 2.
"$pmonsim" exec --sockets 2 --trace "$work/qpi.csv" --trace "$work/events.csv" --report none -- \
  perf stat -a -x, --per-socket -e '{uncore_qpi_0/event=0x0,umask=0x2/,uncore_qpi_0/event=0x14/}' \
  -e '{uncore_ubox/event=0xff/,uncore_ubox/event=0x42,umask=0x2/}' -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat of groups under exec"
expect 0 uncore_ubox/event=0x42,umask=0x2/ 37
expect 1 uncore_ubox/event=0x42,umask=0x2/ 11
expect 0 uncore_ubox/event=0xff/ 2000000
expect 1 uncore_qpi_0/event=0x14/ 1000000   # QPI clockticks: 1 ms of a 1 GHz QCLK (8 GT/s)
expect 0 uncore_qpi_0/event=0x0,umask=0x2/ "$(report 0 qpi0 0x00000200)"

# 4. perf_event_open call by call
"$pmonsim" exec --sockets 2 --report none -- "$probe" > "$work/out" 2> "$work/err" || fail "the probe failed"
while read -r name want; do
  got=$(awk -v n="$name" '$1 == n { print $2 }' "$work/out")
  [ "$got" = "$want" ] || fail "probe: $name is '$got', expected $want"
  checked=$((checked + 1))
done <<'EOT'
raw_type ok
hardware_type ok
unlisted_type ENOENT
per_task EINVAL
task_on_cpu EINVAL
no_cpu EINVAL
sampling EINVAL
exclude_kernel EINVAL
r2pcie_fixed EINVAL
read_bytes 32
count 4000000
enabled_ns 2000000
running_ns 2000000
id_matches 1
short_read ENOSPC
after_reset 0
unknown_ioctl ENOTTY
close 0
wrapped_counter 1999000
wrapped_count 2000000
group_other_socket EINVAL
group_too_big EINVAL
group_fd_not_perf EBADF
group_read_bytes 48
group_nr 2
group_enabled_ns 1000000
group_leader 2000000
group_member 0
group_member_id 1
EOT
echo "PASS: $checked checks"
