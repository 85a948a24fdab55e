#!/usr/bin/env bash
# pmon-stat --target hw --dry-run (issue 14): on the served model it prints
# every write of the setup, the start and the stop as wrmsr/setpci lines and
# makes none (the model's report shows every control still 0); the printed
# lines are real commands: run by sh with Debian's msr-tools and pciutils,
# they program the model exactly as pmon-stat does.
# Usage: dry_run_under_exec.sh PMONSIM PMON_STAT
set -uo pipefail
pmonsim=$1 stat=$2
for tool in wrmsr setpci; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
events=qpi0/RxL_FLITS_G1.DRS_DATA,ubox/LOCK_CYCLES,qpi0/CTO_COUNT:DRS.AnyDataC
"$pmonsim" exec --report csv --report-file "$work/report.csv" -- "$stat" --target hw --dry-run -e "$events" \
  > "$work/writes.sh" || fail "dry run"
grep -q '^setpci -s 0000:ff:08.6 228.L=0x1c00$' "$work/writes.sh" || fail "no filter write: $(cat "$work/writes.sh")"
grep -q '^wrmsr -p 0 0xc10 0x400044$' "$work/writes.sh" || fail "no UBox event write"
awk -F, 'NR > 1 && $8 != "diagnostic" && $4 != "0x00000000" { bad = 1 } END { exit bad }' "$work/report.csv" ||
  fail "the dry run wrote: $(cat "$work/report.csv")"
# The lines as a script: the same controls as pmon-stat's own (not dry) start.
"$pmonsim" exec --report csv --report-file "$work/by_sh.csv" -- sh -e "$work/writes.sh" || fail "sh of the writes"
grep -q '^0,qpi0,1,0x00600038,' "$work/by_sh.csv" || fail "CTO_COUNT not programmed by the lines: $(cat "$work/by_sh.csv")"
echo "ok: $(grep -c '' "$work/writes.sh") writes printed, none made; they run under sh"
