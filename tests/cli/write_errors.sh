#!/usr/bin/env bash
# Write errors are errors and outputs are complete or absent (issue 14, item
# 11): a report, a waveform or pmon-stat's output that cannot be written
# (/dev/full) exits 1 naming the output and the reason, where it exited 0
# with the output lost; a good run leaves no temporary files behind.
# Usage: write_errors.sh PMONSIM PMON_STAT TRACE
set -uo pipefail
pmonsim=$1 stat=$2 trace=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # name, expected stderr fragment, command...
  local name=$1 want=$2; shift 2
  "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  [ "$rc" = 1 ] || fail "$name: exit $rc, expected 1 ($(cat "$work/err"))"
  grep -qF -- "$want" "$work/err" || fail "$name: stderr '$(cat "$work/err")' lacks '$want'"
  echo "ok: $name"
}
expect report_file "the report: /dev/full: cannot write: No space left on device" \
  "$pmonsim" --trace "$trace" --report-file /dev/full
expect report_json "the report: /dev/full: cannot write: No space left on device" \
  "$pmonsim" --trace "$trace" --report json --report-file /dev/full
expect vcd "--vcd: /dev/full: cannot write" "$pmonsim" --trace "$trace" --vcd /dev/full --report none
expect report_stdout "the report: standard output: cannot write: No space left on device" \
  sh -c '"$0" --trace "$1" > /dev/full' "$pmonsim" "$trace"
expect pmon_stat_stdout "pmon-stat: standard output: cannot write: No space left on device" \
  sh -c '"$0" --trace "$1" -e qpi0/RxL_FLITS_G0.DATA > /dev/full' "$stat" "$trace"

# A good run: the report, the dump and its save file, and nothing else.
"$pmonsim" --trace "$trace" --report-file "$work/r.txt" --vcd "$work/w.vcd" || fail "good run"
[ "$(ls "$work" | grep -v '^out$\|^err$' | sort | tr '\n' ' ')" = "r.txt w.vcd w.vcd.gtkw " ] || fail "left: $(ls "$work")"
grep -q '^socket' "$work/r.txt" || fail "report incomplete"
grep -q '\$enddefinitions' "$work/w.vcd" || fail "dump incomplete"
echo "ok: complete outputs, no temporary files"

# A run ended by a signal leaves its outputs absent, never half-written: the
# temporary VCD is removed. (SIGTERM here: a background job of a script
# ignores SIGINT, which is otherwise handled the same.)
printf 'wrmsr 0xc08 0x400000\n' > "$work/fixed.sh"
"$pmonsim" --cycles 2000000000 --program "$work/fixed.sh" --vcd "$work/sig.vcd" --report none &
pid=$!
for _ in $(seq 50); do ls "$work"/sig.vcd.tmp* > /dev/null 2>&1 && break; sleep 0.1; done
ls "$work"/sig.vcd.tmp* > /dev/null 2>&1 || fail "signal: the run wrote no temporary VCD"
kill -TERM $pid
wait $pid
[ $? = 143 ] || fail "signal: the run did not end by SIGTERM"
ls "$work"/sig.vcd* > /dev/null 2>&1 && fail "signal: left $(ls "$work"/sig.vcd*)"
echo "ok: signal leaves no output"
