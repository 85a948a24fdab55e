#!/usr/bin/env bash
# The status line of a long replay (issue 15, item 5; testbench/progress.h).
# Forced with --progress into a pipe: lines redrawn with a carriage return,
# each with the input read, the packets and their rate and the simulated
# time, at most ten a second, and the last one rubbed out; an error is
# written after the line is cleared. Nothing without a terminal, nothing
# with --no-progress, nothing under CI; shown on a terminal (a pty from
# script(1)). The same for pmon-stat.
# No timing is asserted that a loaded machine could break: the first line's
# delay is 0 here (PMONSIM_PROGRESS_DELAY), and the redraw count is checked
# against the wall time the test measured around the whole run (a bound a
# slow machine only loosens).
# Usage: progress.sh PMONSIM PMON_STAT GEN_TRACE
set -uo pipefail
pmonsim=$1 stat=$2 gen=$3
# (A program, so that the counters count: a run without one notes that on stderr.)
program=$(cd "$(dirname "$0")/../../traces/mixed_workload" && pwd)/program.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export PMONSIM_PROGRESS_DELAY=0
unset CI

"$gen" --packets 2000000 --seed 3 > "$work/big.csv" || fail "gen-trace"
"$gen" --packets 200000 --seed 4 > "$work/small.csv" || fail "gen-trace (small)"
size_mib=$(awk -v b="$(stat -c %s "$work/big.csv")" 'BEGIN { printf "%.1f", b / 1048576 }')

# check_lines TOOL FILE SECONDS [PACKETS]: the status lines of FILE (stderr
# of a run that took SECONDS), as described above.
check_lines() {
  python3 - "$@" <<'PY'
import re, sys
tool, path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
total = int(sys.argv[4]) if len(sys.argv) > 4 else None
size = sys.argv[5] if len(sys.argv) > 5 else None
data = open(path, 'rb').read().decode()
def bad(msg):
    print('FAIL: %s: %s\nstderr: %r' % (tool, msg, data[-600:]))
    sys.exit(1)
if '\r' not in data: bad('no carriage return: no status line')
if not data.endswith('\r'): bad('does not end with the line cleared (a final carriage return)')
segments = data.split('\r')
assert segments[-1] == ''
if segments[0] != '': bad('output before the first status line: %r' % segments[0])
line = re.compile(r'^' + re.escape(tool) + r': (\d+)% of ([0-9.]+) (B|KiB|MiB|GiB) read, ([0-9.]+)([kMG]?) packets '
                  r'\(([0-9.]+)([kMG]?)/s\), simulated [0-9.]+ (ps|ns|us|ms|s)(, about \d+ (s|min \d+ s) left)?$')
scale = {'': 1, 'k': 1e3, 'M': 1e6, 'G': 1e9}
shown, last_len, packets, lefts = 0, 0, [], 0
for seg in segments[1:-1]:
    if seg.strip() == '':
        if len(seg) < last_len: bad('a clear of %d spaces leaves a line of %d' % (len(seg), last_len))
        last_len = 0
        continue
    m = line.match(seg.rstrip(' '))
    if not m: bad('not a status line: %r' % seg)
    shown += 1
    last_len = len(seg.rstrip(' '))
    if size and m.group(2) + ' ' + m.group(3) != size: bad('size %s %s, expected %s' % (m.group(2), m.group(3), size))
    if not 0 <= int(m.group(1)) <= 100: bad('fraction %s%%' % m.group(1))
    packets.append(float(m.group(4)) * scale[m.group(5)])
    lefts += m.group(9) is not None
if segments[-2].strip() != '': bad('the last line is not rubbed out')
if shown == 0: bad('no status line')
if packets != sorted(packets): bad('packet counts go down: %s' % packets)
if total is not None and packets[-1] > total * 1.005: bad('%d packets shown, the trace has %d' % (packets[-1], total))
if shown > 10 * seconds + 2: bad('%d lines in %.2f s: more than ten a second' % (shown, seconds))
if shown >= 3 and lefts == 0: bad('%d lines and none says the time left' % shown)
print('ok: %s: %d status lines in %.2f s, %d with the time left' % (tool, shown, seconds, lefts))
PY
}

# timed OUT ERR COMMAND...: runs it, stdout to OUT, stderr to ERR; sets rc, secs.
timed() {
  local out=$1 err=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > "$out" 2> "$err"
  rc=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}

# Forced into a pipe.
timed "$work/out" "$work/err" "$pmonsim" --program "$program" --trace "$work/big.csv" --progress --report csv
[ "$rc" = 0 ] || fail "pmonsim --progress: exit $rc ($(tail -c 300 "$work/err"))"
check_lines pmonsim "$work/err" "$secs" 2000000 "$size_mib MiB" || exit 1
grep -q '^socket' "$work/out" || fail "pmonsim --progress: the report is missing"
grep -q $'\r' "$work/out" && fail "pmonsim --progress: a status line went to standard output"

# The same counts with and without the line.
"$pmonsim" --program "$program" --trace "$work/big.csv" --no-progress --report csv > "$work/out2" 2> "$work/err2" || fail "--no-progress run"
cmp -s "$work/out" "$work/out2" || fail "the report differs with --progress"
[ -s "$work/err2" ] && fail "--no-progress printed: $(head -c 200 "$work/err2" | od -c | head -3)"
echo "ok: --no-progress prints nothing, the report is the same"

# No terminal, no option: nothing.
"$pmonsim" --program "$program" --trace "$work/small.csv" --report none > /dev/null 2> "$work/err3" || fail "default run"
[ -s "$work/err3" ] && fail "a pipe got a status line by default: $(head -c 200 "$work/err3" | od -c | head -3)"
echo "ok: nothing in a pipe by default"

# Both options: refused.
"$pmonsim" --program "$program" --trace "$work/small.csv" --progress --no-progress > /dev/null 2> "$work/err4"
rc=$?
[ "$rc" = 2 ] || fail "--progress --no-progress: exit $rc"
grep -q -- "--progress and --no-progress exclude each other" "$work/err4" || fail "both: $(cat "$work/err4")"
echo "ok: --progress with --no-progress is refused"

# An error after status lines: the line is cleared, then the message.
cp "$work/big.csv" "$work/bad.csv"
echo "99999999999,0,0,rx,NOPE,0,,0" >> "$work/bad.csv"
timed "$work/out" "$work/err" "$pmonsim" --program "$program" --trace "$work/bad.csv" --progress --report none
[ "$rc" = 2 ] || fail "bad trace: exit $rc"
python3 - "$work/err" <<'PY' || exit 1
import sys
data = open(sys.argv[1], newline='').read()
segs = data.split('\r')
tail = segs[-1]
if not tail.startswith('pmonsim: ') or 'NOPE' not in tail or 'packets' in tail:
    print('FAIL: the error is not on a cleared line: %r' % data[-400:]); sys.exit(1)
if not any(s.startswith('pmonsim: ') and 'packets' in s for s in segs):
    print('FAIL: no status line before the error: %r' % data[-400:]); sys.exit(1)
if segs[-2].strip() != '':
    print('FAIL: the line was not rubbed out before the error: %r' % data[-400:]); sys.exit(1)
print('ok: an error comes after the line is cleared')
PY

# On a terminal (a pty): shown by default; not with CI set; not with --no-progress.
if command -v script > /dev/null; then
  TERM=xterm script -qec "\"$pmonsim\" --program \"$program\" --trace \"$work/big.csv\" --report none" /dev/null > "$work/tty" 2>&1 < /dev/null
  grep -q 'pmonsim: .*packets (.*/s), simulated' "$work/tty" || fail "no status line on a terminal: $(head -c 300 "$work/tty")"
  echo "ok: shown on a terminal by default"
  CI=true TERM=xterm script -qec "\"$pmonsim\" --program \"$program\" --trace \"$work/small.csv\" --report none" /dev/null > "$work/tty" 2>&1 < /dev/null
  grep -q 'packets' "$work/tty" && fail "a status line under CI: $(head -c 300 "$work/tty")"
  TERM=xterm script -qec "\"$pmonsim\" --program \"$program\" --trace \"$work/small.csv\" --report none --no-progress" /dev/null > "$work/tty" 2>&1 < /dev/null
  grep -q 'packets' "$work/tty" && fail "a status line with --no-progress on a terminal"
  echo "ok: not under CI, not with --no-progress"
else
  echo "FAIL: script(1) (util-linux) is missing"; exit 1
fi

# pmon-stat on the model.
timed "$work/out" "$work/err" "$stat" --trace "$work/big.csv" -e qpi0/RxL_FLITS_G0.DATA --progress
[ "$rc" = 0 ] || fail "pmon-stat --progress: exit $rc ($(tail -c 300 "$work/err"))"
check_lines pmon-stat "$work/err" "$secs" 2000000 "$size_mib MiB" || exit 1
grep -q 'qpi0/RxL_FLITS_G0.DATA' "$work/out" || fail "pmon-stat: no count"
"$stat" --trace "$work/small.csv" -e qpi0/RxL_FLITS_G0.DATA > /dev/null 2> "$work/err5" || fail "pmon-stat default"
[ -s "$work/err5" ] && fail "pmon-stat: a pipe got a status line by default"
echo "ok: pmon-stat"
echo "all progress checks passed"
