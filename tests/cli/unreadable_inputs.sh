#!/usr/bin/env bash
# Inputs that cannot be read, or hold bytes a message cannot show (issue 14,
# items 8-10): each is a clear error, exit status 2, naming the file and why.
#  - a directory as --trace (checked first or while replaying), --script,
#    --program or --config: "is a directory" (it was an internal error, or
#    read as empty);
#  - a missing file: the system's reason;
#  - a NUL byte in a script or a trace: shown as \x00, the message whole;
#  - more traces than open files allowed: the limit, not a good file, blamed
#    (with several replay threads, each opens every trace: the default
#    falls back to one thread, and --threads asked for says so);
#  - endless input (/dev/zero) as a script, program, configuration or piped
#    trace: a bounded read and an error at once (item 7), not gigabytes
#    read or copied first.
# Usage: unreadable_inputs.sh PMONSIM
set -uo pipefail
pmonsim=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # name, stderr fragment, args...
  local name=$1 want=$2; shift 2
  timeout 60 "$pmonsim" "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  [ "$rc" = 2 ] || fail "$name: exit $rc, expected 2 ($(cat "$work/err"))"
  grep -qF -- "$want" "$work/err" || fail "$name: stderr '$(cat "$work/err")' lacks '$want'"
  [ ! -s "$work/out" ] || fail "$name: printed a report"
  echo "ok: $name"
}
mkdir "$work/dir"
expect trace_dir "$work/dir: cannot open: is a directory" --trace "$work/dir"
expect trace_dir_first "$work/dir: cannot open: is a directory" --trace "$work/dir" --check-first
expect script_dir "$work/dir: cannot open: is a directory" --script "$work/dir"
expect program_dir "$work/dir: cannot open: is a directory" --program "$work/dir"
expect config_dir "--config: cannot open $work/dir: is a directory" --config "$work/dir"
expect trace_missing "$work/none.csv: cannot open: No such file or directory" --trace "$work/none.csv"
expect script_missing "$work/none.sh: cannot open: No such file or directory" --script "$work/none.sh"

printf 'wrmsr 0xc00 0x1\nrdmsr \0x12\n' > "$work/nul.sh"
expect script_nul "nul.sh:2: '\\x00' has a meaning to sh" --script "$work/nul.sh"
printf 'time,socket,port,dir,mc\n0,0,0,rx,DR\0S\n' > "$work/nul.csv"
expect trace_nul "column 'mc': 'DR\\x00S' is not a message class" --trace "$work/nul.csv"

for i in $(seq 100 179); do printf 'time,socket,port,dir,mc\n%d,0,0,rx,DRS\n' "$i" > "$work/p$i.csv"; done
args=()
for f in "$work"/p*.csv; do args+=(--trace "$f"); done
(ulimit -n 40 && "$pmonsim" "${args[@]}" > "$work/out" 2> "$work/err"; echo $? > "$work/rc")
[ "$(cat "$work/rc")" = 2 ] || fail "fd limit: exit $(cat "$work/rc")"
grep -qF "Too many open files (the 80 traces are read together, one open file each, and the limit of open files is 40: raise it with ulimit -n)" \
  "$work/err" || fail "fd limit: $(cat "$work/err")"
echo "ok: fd limit"
# Binary traces are replayed by one thread per core by default, each with its
# own open file per trace: out of descriptors, the default falls back to one
# thread (the same report); --threads asked for says why it cannot.
mkdir "$work/bin"
for i in $(seq 100 111); do "$pmonsim" convert "$work/p$i.csv" "$work/bin/p$i.bin" > /dev/null; done
bargs=()
for f in "$work"/bin/p*.bin; do bargs+=(--trace "$f"); done
"$pmonsim" "${bargs[@]}" --threads 1 --report csv > "$work/fd1.csv"
(ulimit -n 22 && "$pmonsim" "${bargs[@]}" --report csv > "$work/fdauto.csv" 2> "$work/fdauto.err"; echo $? > "$work/rc")
[ "$(cat "$work/rc")" = 0 ] || fail "fd limit, default threads: exit $(cat "$work/rc"): $(cat "$work/fdauto.err")"
cmp -s "$work/fd1.csv" "$work/fdauto.csv" || fail "fd limit, default threads: another report"
(ulimit -n 22 && "$pmonsim" "${bargs[@]}" --threads 2 --report csv > "$work/out" 2> "$work/err"; echo $? > "$work/rc")
[ "$(cat "$work/rc")" = 2 ] || fail "fd limit, --threads 2: exit $(cat "$work/rc")"
grep -qF "Too many open files (the 12 traces are read together, one open file each for each of the 2 replay threads, and the limit of open files is 22: raise it with ulimit -n, or use fewer --threads)" \
  "$work/err" || fail "fd limit, --threads 2: $(cat "$work/err")"
echo "ok: fd limit with threads"
expect convert_dir "$work/dir: cannot open the file: is a directory" convert "$work/dir" "$work/x.bin"
[ ! -e "$work/x.bin" ] || fail "convert_dir: made an output"

expect script_zero "/dev/zero:1: the line is longer than 65536 bytes" --script /dev/zero
expect program_zero "/dev/zero:1: the line is longer than 65536 bytes" --program /dev/zero
expect config_zero "--config: /dev/zero is larger than 1048576 bytes" --config /dev/zero
expect trace_zero_checked_first "/dev/zero: a line is longer than 65536 bytes" --trace /dev/zero --check-first
timeout 60 "$pmonsim" --trace - < /dev/zero > "$work/out" 2> "$work/err"
[ $? = 2 ] && grep -qF "standard input: a line is longer than 65536 bytes" "$work/err" || fail "stdin zero: $(cat "$work/err")"
echo "ok: trace_zero_stdin"

# Times beyond the model's range (issue 14, item 5): an error naming the row,
# where pmonsim spun for ever, or dropped the row, or wrapped the run.
printf 'cycle,socket,port,dir,mc\n18446744073708552,0,0,rx,DRS\n' > "$work/far_cycle.csv"
expect far_cycle "far_cycle.csv:2:1: column 'cycle': '18446744073708552' is beyond the model's time range (4611686018427387.904 ns, about 53 days)" \
  --trace "$work/far_cycle.csv"
printf 'time,socket,port,dir,mc\n18446744073709551.615,0,0,rx,DRS\n' > "$work/far_time.csv"
expect far_time "column 'time': '18446744073709551.615' is beyond the model's time range" --trace "$work/far_time.csv"
printf 'cycle,box,event,count,repeat\n1,ubox,LOCK_CYCLES,1,18446744073709000000\n' > "$work/far_run.csv"
expect far_run "column 'repeat': '18446744073709000000' is too large: the run would end beyond the model's time range" \
  --trace "$work/far_run.csv"
"$pmonsim" convert "$work/far_time.csv" "$work/far.bin" 2> "$work/err" && fail "convert took a time beyond the range"
echo "ok: far_convert"
