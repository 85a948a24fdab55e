#!/usr/bin/env bash
# The served core PMU ("cpu", decisions.md S19) through Debian's perf stat,
# unmodified, under `pmonsim exec`: its sysfs description, and counts that
# are the platform model's (every CPU busy at the base clock, IPC 1):
#   per task, 1 ms of sleep: 2.8 M cycles, instructions and ref-cycles (ivb-ep);
#   per CPU (-a) on 2 sockets x 16 CPUs: 32 x 2.8 M; on snb-ep 2.7 GHz;
#   a raw event other than the fixed counters' counts 0; a hardware or cache
#   event not modeled is ENOENT, which perf prints as <not supported>; a
#   privilege filter (:u) changes nothing; sampling (perf record) is EOPNOTSUPP.
# Usage: core_pmu_e2e.sh PMONSIM
set -uo pipefail
pmonsim=$1
command -v perf > /dev/null && perf version > /dev/null 2>&1 || { echo "SKIP: perf is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; [ -f "$work/err" ] && head -40 "$work/err"; exit 1; }
checked=0

# sysfs: type 4 and the kernel's format/ for Intel.
"$pmonsim" exec --report none -- sh -c 'd=/sys/bus/event_source/devices/cpu
  for f in type format/event format/umask format/edge format/inv format/cmask format/any events/ref-cycles; do
    echo "$f $(cat $d/$f)"; done' > "$work/sysfs" 2>&1 || fail "reading /sys/bus/event_source/devices/cpu"
diff - "$work/sysfs" <<'EOT' || fail "the cpu PMU's sysfs description"
type 4
format/event config:0-7
format/umask config:8-15
format/edge config:18
format/inv config:23
format/cmask config:24-31
format/any config:21
events/ref-cycles event=0x00,umask=0x03
EOT
checked=$((checked + 1))

# count EVENT: the value perf stat printed for it.
count() { awk -F, -v e="$1" '$3 == e { print $1 }' "$work/err"; }
expect() {
  local got
  got=$(count "$1")
  [ "$got" = "$2" ] || fail "$3: $1 is '$got', expected $2"
  checked=$((checked + 1))
}

"$pmonsim" exec --report none -- perf stat -x, -e cycles,instructions,ref-cycles,r4f2e,branches -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat of a task"
for e in cycles instructions ref-cycles; do expect "$e" 2800000 "a task sleeping 1 ms at 2.8 GHz"; done
expect r4f2e 0 "a task"
expect branches "<not supported>" "a task"

"$pmonsim" exec --sockets 2 --report none -- perf stat -a -x, -e '{cycles,instructions,ref-cycles}' -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat -a of a group"
for e in cycles instructions ref-cycles; do expect "$e" 89600000 "32 CPUs, 1 ms at 2.8 GHz"; done

"$pmonsim" exec --cpu snb-ep --report none -- perf stat -a -x, -e cycles -- sleep 0.001 \
  > "$work/out" 2> "$work/err" || fail "perf stat -a on snb-ep"
expect cycles 43200000 "snb-ep: 16 CPUs, 1 ms at 2.7 GHz"

# Counting only: no interrupt to sample with (EOPNOTSUPP, as for such a PMU).
"$pmonsim" exec --report none -- perf record -o "$work/perf.data" -e cycles -- sleep 0.001 > "$work/out" 2> "$work/err" &&
  fail "perf record succeeded"
grep -q "cycles: PMU Hardware doesn't support sampling/overflow-interrupts" "$work/err" ||
  fail "perf record did not see EOPNOTSUPP"
"$pmonsim" exec --report none -- perf stat -x, -e cycles:u,L1-dcache-loads -- sleep 0.002 \
  > "$work/out" 2> "$work/err" || fail "perf stat of cycles:u"
expect cycles:u 5600000 "a task sleeping 2 ms, user only"
expect L1-dcache-loads "<not supported>" "a task"
checked=$((checked + 1))

echo "ok: $checked checks of the core PMU"
