#!/usr/bin/env bash
# pmonsim_usability.sh CASE PMONSIM SOURCE_DIR
# Issue 15's pmonsim items that take more than one command to check: convert's
# output format and help, the one-table CSV report, and the waveform outputs
# (no files after bad globs, FST, sizes on stderr, decimal counters in the
# .gtkw). Exit 77 skips a case whose tool (vcd2fst, python3) is missing.
set -euo pipefail
case_name=$1 pmonsim=$2 root=$3
drs=$root/traces/drs_data_transfer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
need() { command -v "$1" >/dev/null || { echo "SKIP: $1 is not installed"; exit 77; }; }

case $case_name in
convert_by_extension)
  # OUT's extension picks the format: text to text normalizes, binary to binary re-checks.
  "$pmonsim" convert "$drs/packets.csv" "$work/p.bin"
  "$pmonsim" convert "$work/p.bin" "$work/normal.csv"          # binary -> text (as before)
  "$pmonsim" convert "$drs/packets.csv" "$work/same.csv"       # text -> text
  cmp -s "$work/same.csv" "$work/normal.csv" || fail "text to .csv is not the writer's text: $(head -3 "$work/same.csv")"
  "$pmonsim" convert "$work/normal.csv" "$work/x.txt"
  cmp -s "$work/x.txt" "$work/normal.csv" || fail ".txt is not text"
  "$pmonsim" convert "$work/p.bin" "$work/again.bin"           # binary -> binary
  cmp -s "$work/again.bin" "$work/p.bin" || fail "binary to .bin is not the same binary"
  "$pmonsim" convert "$drs/packets.csv" "$work/p.other"        # no known extension: as before
  cmp -s "$work/p.other" "$work/p.bin" || fail "text to an unknown extension is not binary"
  # A bad binary record is found when rewriting binary, too.
  head -c 18 "$work/p.bin" > "$work/cut.bin"   # inside the first record
  if "$pmonsim" convert "$work/cut.bin" "$work/cut2.bin" 2> "$work/err"; then fail "a cut binary converted"; fi
  [ ! -e "$work/cut2.bin" ] || fail "a failed conversion left its output"
  # gzip output is refused before anything is written.
  set +e
  "$pmonsim" convert "$drs/packets.csv" "$work/p.csv.gz" 2> "$work/err"
  rc=$?
  set -e
  [ "$rc" = 2 ] || fail "convert to .gz: exit $rc"
  grep -q "p.csv.gz: convert does not write gzip" "$work/err" || fail "no gzip message: $(cat "$work/err")"
  [ ! -e "$work/p.csv.gz" ] || fail "a .gz output was written"
  # .zst output: compressed with zstd, in the format its inner name asks for; read as it is.
  "$pmonsim" convert "$drs/packets.csv" "$work/p.bin.zst"
  zstd -q -d -c "$work/p.bin.zst" | cmp -s - "$work/p.bin" || fail ".bin.zst is not the binary, compressed"
  "$pmonsim" convert "$work/p.bin.zst" "$work/z.csv"
  cmp -s "$work/z.csv" "$work/normal.csv" || fail "a .bin.zst trace does not read back"
  "$pmonsim" convert "$work/p.bin" "$work/p.csv.zst"
  zstd -q -d -c "$work/p.csv.zst" | cmp -s - "$work/normal.csv" || fail ".csv.zst is not the text, compressed"
  ;;
convert_help)
  # Only the options convert uses; no internal --files.
  "$pmonsim" convert --help > "$work/help"
  for o in --cpu --sockets --qpi-ports --uclk-mhz --qpi-gts; do
    grep -q -- "^  $o " "$work/help" || fail "convert --help lacks $o"
  done
  for o in --files --freeze-latency --cpus-per-socket; do
    if grep -q -- "$o" "$work/help"; then fail "convert --help shows $o"; fi
  done
  "$pmonsim" convert --sockets 2 --qpi-gts 8 "$drs/packets.csv" "$work/p.bin" || fail "convert with its options"
  ;;
csv_one_table)
  # The CSV report is one table: the same columns on every row, no blank line,
  # diagnostics as rows whose state is "diagnostic".
  need python3
  "$pmonsim" --trace "$drs/packets.csv" --script "$drs/perf_session.sh" --report csv --report-file "$work/r.csv" \
    > /dev/null
  python3 - "$work/r.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
assert head[:12] == ["socket", "box", "counter", "control", "event", "value", "overflows", "state",
                     "box_frozen", "global_freeze", "uclk_cycles", "qclk_cycles"], head
bad = [r for r in rows if len(r) != len(head)]
assert not bad, f"rows of another width than the header's {len(head)}: {bad[:3]}"
st = head.index("state")
counters = [r for r in rows[1:] if r[st] != "diagnostic"]
diags = [r for r in rows[1:] if r[st] == "diagnostic"]
assert len(counters) == 87 and len(diags) == 4, (len(counters), len(diags))  # 15, 4 iMC channels of 5, an HA of 4, 2 R3QPI links of 3, 8 CBos of 4, the PCU's 4 and 2 residency counters, the IRP's 4
d = dict(zip(head, diags[0]))
assert d["box"] == "qpi0" and d["register"] == "Q_P0_PCI_PMON_BOX_CTL" and d["register_value"] == "0x00000003" \
    and d["reason"].startswith("bits 0x30000"), d
c = dict(zip(head, counters[8]))
assert c["box"] == "qpi0" and c["value"] == "800", c
EOF
  if grep -q '^$' "$work/r.csv"; then fail "a blank line in the CSV report"; fi
  ;;
vcd_bad_globs_leave_nothing)
  set +e
  "$pmonsim" --trace "$drs/packets.csv" --program "$drs/program.sh" --vcd "$work/w.vcd" --vcd-signals 'nothing*' \
    2> "$work/err"
  rc=$?
  set -e
  [ "$rc" = 2 ] || fail "exit $rc"
  grep -q "matches no signal" "$work/err" || fail "no message: $(cat "$work/err")"
  [ -z "$(ls -A "$work")" ] || [ "$(ls -A "$work")" = err ] || fail "files left behind: $(ls -A "$work")"
  ;;
vcd_fst)
  # --vcd X.fst writes FST (vcd2fst), X.fst.gtkw names the .fst, no VCD is left.
  need vcd2fst
  "$pmonsim" --trace "$drs/packets.csv" --program "$drs/program.sh" --vcd "$work/w.fst" \
    --vcd-signals 'socket0.qpi0.*' --report none 2> "$work/err"
  [ "$(head -c 1 "$work/w.fst" | od -An -tx1 | tr -d ' ')" = 00 ] || fail "w.fst does not start as an FST (FST_BL_HDR)"
  if head -c 200 "$work/w.fst" | grep -qa 'timescale'; then fail "w.fst is VCD text"; fi
  grep -qF "[dumpfile] \"$work/w.fst\"" "$work/w.fst.gtkw" || fail "the .gtkw does not name the .fst: $(head -3 "$work/w.fst.gtkw")"
  [ "$(ls -A "$work" | sort | tr '\n' ' ')" = "err w.fst w.fst.gtkw " ] || fail "other files: $(ls -A "$work")"
  grep -q "^pmonsim: wrote .* of waveforms to $work/w.fst (FST of .* of VCD)$" "$work/err" ||
    fail "no size line: $(cat "$work/err")"
  if command -v fst2vcd >/dev/null; then
    fst2vcd "$work/w.fst" > "$work/back.vcd" 2>/dev/null || fail "fst2vcd cannot read the FST"
    grep -q 'scope module ctr0' "$work/back.vcd" || fail "fst2vcd finds no ctr0 in the FST"
    rm "$work/back.vcd"
  fi
  ;;
vcd_fst_without_vcd2fst)
  # Without vcd2fst: exit 2 before the run, naming the package, and no files.
  set +e
  env PATH=/nonexistent "$pmonsim" --trace "$drs/packets.csv" --program "$drs/program.sh" --vcd "$work/w.fst" \
    2> "$work/err"
  rc=$?
  set -e
  [ "$rc" = 2 ] || fail "exit $rc"
  grep -q "vcd2fst.*Debian package gtkwave" "$work/err" || fail "message: $(cat "$work/err")"
  [ "$(ls -A "$work")" = err ] || fail "files left behind: $(ls -A "$work")"
  ;;
vcd_sizes)
  # The size written at the end; a note (once) when the dump passes the
  # threshold (1 GB; lowered here).
  "$pmonsim" --trace "$drs/packets.csv" --program "$drs/program.sh" --vcd "$work/w.vcd" --report none 2> "$work/err"
  size=$(stat -c %s "$work/w.vcd")
  grep -q "^pmonsim: wrote [0-9.]* kB of waveforms to $work/w.vcd$" "$work/err" || fail "no size line: $(cat "$work/err")"
  if grep -q "have passed" "$work/err"; then fail "a note on a small dump"; fi
  PMONSIM_VCD_NOTE_BYTES=$((size / 2)) "$pmonsim" --trace "$drs/packets.csv" --program "$drs/program.sh" \
    --vcd "$work/w2.vcd" --report none 2> "$work/err2"
  [ "$(grep -c "have passed .*--vcd-window START:END (ns) or --vcd-signals GLOBS" "$work/err2")" = 1 ] ||
    fail "no single note: $(cat "$work/err2")"
  ;;
gtkw_decimal_counters)
  # Counter values and increments in decimal (GTKWave flag @24), registers in hex (@22).
  "$pmonsim" --trace "$drs/packets.csv" --program "$drs/program.sh" --vcd "$work/w.vcd" \
    --vcd-signals 'socket0.qpi0.*' --report none 2> /dev/null
  g=$work/w.vcd.gtkw
  # The flag in force for a trace: the last @ line before it.
  flag_of() { awk -v s="$1" '/^@/ { f = $0 } $0 == s { print f; exit }' "$g"; }
  for t in 'socket0.qpi0.ctr0.value[47:0]' 'socket0.qpi0.ctr0.inc[7:0]' 'socket0.qpi0.rx.drs_data[7:0]'; do
    [ "$(flag_of "$t")" = @24 ] || fail "$t is not shown in decimal ($(flag_of "$t")): $(cat "$g")"
  done
  [ "$(flag_of 'socket0.qpi0.box_ctl[31:0]')" = @22 ] || fail "box_ctl is not shown in hex"
  [ "$(flag_of 'socket0.qpi0.frozen')" = @28 ] || fail "frozen is not shown in binary"
  ;;
*) echo "unknown case $case_name"; exit 2 ;;
esac
echo "ok: $case_name"
