#!/usr/bin/env bash
# The Nehalem-EP model served to real tools (`pmonsim exec --cpu nhm-ep`):
#  1. Debian's msr-tools run traces/nhm_memory_traffic/program.sh and read
#     every uncore MSR back: the same values and report as `pmonsim --script`;
#  2. Debian's perf: the kernel's "uncore" PMU in sysfs (Linux's nhm format:
#     event, umask, edge, inv, cmask) and `perf stat -a --per-socket` of two
#     events and the fixed counter (event=0xff) around `sleep 0.001`: each
#     socket's count is what the trace drove in that millisecond;
#  3. pmon-stat --target hw under exec prints what --target sim prints;
#  4. Debian's lspci and setpci find the Generic Non-core Registers function
#     (00.0, 8086:2c40) on each socket's uncore bus (ff, fe) and read the
#     uncore clock ratio at C0h: 15 for the default 2000 MHz, 20 for
#     --uclk-mhz 2666.67 (decisions.md N12).
# Usage: nhm_e2e.sh PMONSIM PMON_STAT EXAMPLE_DIR
set -uo pipefail
pmonsim=$1 stat=$2 dir=$3
for tool in rdmsr wrmsr perf lspci setpci; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (msr-tools, linux-perf, pciutils)"; exit 77; }
done
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; for f in out err; do [ -f "$work/$f" ] && { echo "--- $f"; cat "$work/$f"; }; done; exit 1; }

# 1. msr-tools
{
  cat "$dir/program.sh"
  echo "sleep 0.000002"
  for m in 0x391 0x392 0x394 0x395 0x396 0x3b0 0x3b1 0x3b2 0x3b3 0x3b4 0x3b5 0x3b6 0x3b7 0x3c7; do
    echo "rdmsr -p 0 -x $m"
  done
} > "$work/session.sh"
"$pmonsim" --cpu nhm-ep --trace "$dir/events.csv" --script "$work/session.sh" --report csv > "$work/script.out" \
  || fail "pmonsim --script"
"$pmonsim" exec --cpu nhm-ep --trace "$dir/events.csv" --report csv -- sh -e "$work/session.sh" > "$work/out" 2> "$work/err" \
  || fail "msr-tools under exec"
diff -u "$work/script.out" "$work/out" || fail "msr-tools under exec differ from pmonsim --script"
grep -qx '258' "$work/out" || fail "PMC0 (QMC_NORMAL_READS.ANY) is not 600 (0x258)"
echo "ok: msr-tools: $(grep -c '' "$work/out") identical lines"

# 2. perf
cat > "$work/events.csv" <<'EOT'
time,socket,box,event,umask,ext,count,repeat
200000,0,uncore,QMC_NORMAL_READS,CH0,,1,300
200000,1,uncore,QMC_NORMAL_READS,CH2,,1,50
300000,0,uncore,QHL_REQUESTS,LOCAL_READS,,1,77
EOT
"$pmonsim" exec --cpu nhm-ep --sockets 2 --report none -- sh -c \
  'd=/sys/bus/event_source/devices/uncore; for f in type cpumask format/event format/umask format/edge format/inv format/cmask; do echo "$f $(cat $d/$f)"; done' \
  > "$work/out" 2> "$work/err" || fail "sysfs under exec"
for want in "type 50" "cpumask 0,16" "format/event config:0-7" "format/umask config:8-15" "format/edge config:18" \
            "format/inv config:23" "format/cmask config:24-31"; do
  grep -qx "$want" "$work/out" || fail "sysfs: no '$want'"
done
"$pmonsim" exec --cpu nhm-ep --sockets 2 --trace "$work/events.csv" --report none -- \
  perf stat -a -x, --per-socket -e uncore/event=0x2c,umask=0x07/ -e uncore/event=0xff/ -e uncore/event=0x20,umask=0x10/ \
  -- sleep 0.001 > "$work/out" 2> "$work/err" || fail "perf stat under exec"
count() { awk -F, -v s="$1" -v e=",$2," '$1 == s && index($0, e) { print $3 }' "$work/err"; }
expect() { [ "$(count "$1" "$2")" = "$3" ] || fail "$2 on $1: perf printed '$(count "$1" "$2")', expected $3"; }
expect S0 uncore/event=0x2c,umask=0x07/ 300
expect S1 uncore/event=0x2c,umask=0x07/ 50
expect S0 uncore/event=0x20,umask=0x10/ 77
expect S1 uncore/event=0x20,umask=0x10/ 0
expect S0 uncore/event=0xff/ 2000000  # 1 ms of a 2 GHz UCLK
expect S1 uncore/event=0xff/ 2000000
echo "ok: perf: uncore PMU and per-socket counts"

# 3. pmon-stat's hardware path
opts=(-e uncore/QMC_NORMAL_READS.ANY,uncore/event=0x23,umask=0x04,cmask=4/,uncore/UCLK --duration 0.0000011)
"$stat" --target sim --cpu nhm-ep --trace "$dir/events.csv" "${opts[@]}" > "$work/sim.out" 2>&1 || fail "pmon-stat sim"
"$pmonsim" exec --cpu nhm-ep --trace "$dir/events.csv" --report none -- "$stat" --target hw "${opts[@]}" \
  > "$work/out" 2> "$work/err" || fail "pmon-stat hw under exec"
diff -u "$work/sim.out" "$work/out" || fail "pmon-stat: hw under exec differs from sim"
grep -q "600      uncore/QMC_NORMAL_READS.ANY" "$work/out" || fail "pmon-stat: no 600 reads"
grep -q "100      uncore/event=0x23,umask=0x04,cmask=4/" "$work/out" || fail "pmon-stat: no 100 cycles at >= 4"
echo "ok: pmon-stat --target hw under exec equals --target sim"

# 4. lspci and setpci: the uncore clock ratio register
"$pmonsim" exec --cpu nhm-ep --sockets 2 --report none -- sh -e -c '
  lspci -n -d 8086:
  setpci -s ff:00.0 c0.l
  setpci -s fe:00.0 c0.l
  setpci -s ff:00.0 c0.l=7f
  setpci -s ff:00.0 c0.l' > "$work/out" 2> "$work/err" || fail "lspci, setpci under exec"
expected="fe:00.0 0600: 8086:2c40 (rev 05)
ff:00.0 0600: 8086:2c40 (rev 05)
0000000f
0000000f
0000000f"
[ "$(cat "$work/out")" = "$expected" ] || fail "Generic Non-core Registers: IDs, or C0h not 15 (2000 MHz) and read-only"
"$pmonsim" exec --cpu nhm-ep --uclk-mhz 2666.67 --report none -- setpci -s ff:00.0 c0.l > "$work/out" 2> "$work/err" \
  || fail "setpci with --uclk-mhz 2666.67"
[ "$(cat "$work/out")" = 00000014 ] || fail "C0h is not 20 (0x14) for 2666.67 MHz"
echo "ok: lspci and setpci: 8086:2c40 on buses ff and fe, uncore clock ratio 15 and 20"
