#!/usr/bin/env bash
# pmon-stat -I T --plot FILE (issue 15, item 6; testbench/plot.h): the SVG's
# series (gnuplot's <g id="gnuplot_plot_N..."> groups, named in the legend)
# are the events and metrics per socket, each with one point per interval
# printed, placed as the printed counts are ordered; the title names the
# trace and the CPU, the axes their units. A PNG is a PNG of the size asked.
# Errors: no -I, a name that is neither .svg nor .png, no gnuplot (naming
# the package), an unwritable file (path and reason) - each before anything
# is measured, and no file or temporary file is left.
# Usage: plot.sh PMON_STAT TRACES_DIR
set -uo pipefail
stat=$1 traces=$2
trace=$traces/mixed_workload/packets.csv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v gnuplot > /dev/null || fail "gnuplot is not installed (Debian package gnuplot-nox; scripts/setup-debian.sh)"

# check_svg SVG STDOUT SERIES...: each SERIES is "panel-unit|name|printed-name|socket"
# (printed-name: the event or metric as the text output prints it; socket:
# the S column or - when there is none).
check_svg() {
  python3 - "$@" <<'PY'
import re, sys
svg_path, out_path, want = sys.argv[1], sys.argv[2], [w.split('|') for w in sys.argv[3:]]
svg = open(svg_path).read()
out = open(out_path).read().splitlines()
def bad(msg):
    print('FAIL: %s: %s' % (svg_path, msg)); sys.exit(1)
if not svg.lstrip().startswith('<?xml') or '</svg>' not in svg: bad('not a whole SVG file')
# The printed intervals: "      TIME [S] COUNT  EVENT" (counts may have separators).
rows = {}
for line in out:
    f = line.split()
    if not f or f[0].startswith('#'): continue
    t = float(f[0])
    sock = f[1] if f[1].startswith('S') else '-'
    rest = f[2:] if sock != '-' else f[1:]
    value = float(rest[0].replace(',', ''))
    name = rest[-1]
    rows.setdefault((name, sock), []).append((t, value))
# A group's legend text and line are the first <text> and <path> after its start.
starts = list(re.finditer(r'<g id="gnuplot_plot_(\d+)([a-z]*)" >', svg))
groups = [(m.group(1), m.group(2), svg[m.end():(starts[i + 1].start() if i + 1 < len(starts) else len(svg))])
          for i, m in enumerate(starts)]
series = []
for num, panel, body in groups:
    key = re.search(r'<text>([^<]*)</text>', body)
    path = re.search(r"<path stroke='[^']*'\s+d='([^']*)'", body)
    if not key or not path: bad('group %s%s has no legend text or no line' % (num, panel))
    # The path: the legend's sample (M x,y L x,y), then M and the points.
    moves = path.group(1).split('M')[1:]
    if len(moves) != 2: bad('series %s: %d moves in its path' % (key.group(1), len(moves)))
    pts = re.findall(r'([0-9.]+),([0-9.]+)', moves[1])
    series.append((panel, key.group(1), [(float(x), float(y)) for x, y in pts]))
if len(series) != len(want):
    bad('%d series (%s), expected %d' % (len(series), [s[1] for s in series], len(want)))
panels = []
for (panel, name, pts), (unit, wname, printed, sock) in zip(series, want):
    if name != wname: bad('series %r where %r was expected' % (name, wname))
    if panel not in panels: panels.append(panel)
    printed_rows = rows.get((printed, sock))
    if not printed_rows: bad('no printed rows for %s %s' % (printed, sock))
    # A last interval under a tenth of the others is not drawn.
    if len(printed_rows) > 1 and printed_rows[-1][0] - printed_rows[-2][0] < 0.1 * printed_rows[0][0]:
        printed_rows = printed_rows[:-1]
    if len(pts) != len(printed_rows):
        bad('%s: %d points, %d intervals printed' % (name, len(pts), len(printed_rows)))
    xs = [x for x, _ in pts]
    if xs != sorted(xs) or len(set(xs)) != len(xs): bad('%s: times not increasing' % name)
    # Whole intervals (all but the last) of equal length: the heights are
    # the printed counts (or values) under one linear map, higher up for more.
    vals = [v for _, v in printed_rows][:-1]
    ys = [y for _, y in pts][:-1]
    hi, lo = vals.index(max(vals)), vals.index(min(vals))
    if vals[hi] == vals[lo]:
        if max(ys) - min(ys) > 0.015: bad('%s: equal values drawn at different heights' % name)
        continue
    slope = (ys[hi] - ys[lo]) / (vals[hi] - vals[lo])
    if not slope < 0: bad('%s: larger values are not drawn higher' % name)
    for k, (v, y) in enumerate(zip(vals, ys)):
        if abs(ys[lo] + slope * (v - vals[lo]) - y) > 0.5:
            bad('%s: interval %d (%g) drawn at y=%.2f, %.2f expected' % (name, k, v, y, ys[lo] + slope * (v - vals[lo])))
units = []
for w in want:
    if w[0] not in units: units.append(w[0])
if len(panels) != len(units): bad('%d panels, expected %d (%s)' % (len(panels), len(units), units))
for u in units:
    if '<text>%s</text>' % u not in svg: bad('no axis label %r' % u)
print('ok: %s: %d series in %d panels, %s points' % (svg_path, len(series), len(panels), [len(s[2]) for s in series]))
PY
}

# Events and a metric, one socket.
"$stat" --trace "$trace" -e qpi0/RxL_FLITS_G1.DRS_DATA,qpi1/RxL_FLITS_G1.SNP -M qpi_rx_data_bw \
  -I 0.0005 --plot "$work/rates.svg" > "$work/out" 2> "$work/err" || fail "svg run: $(cat "$work/err")"
[ -s "$work/err" ] && fail "svg run printed on stderr: $(cat "$work/err")"
check_svg "$work/rates.svg" "$work/out" \
  "events/s|qpi0/RxL_FLITS_G1.DRS_DATA|qpi0/RxL_FLITS_G1.DRS_DATA|-" \
  "events/s|qpi1/RxL_FLITS_G1.SNP|qpi1/RxL_FLITS_G1.SNP|-" \
  "MB/s|qpi_rx_data_bw.qpi0|qpi_rx_data_bw.qpi0|-" \
  "MB/s|qpi_rx_data_bw.qpi1|qpi_rx_data_bw.qpi1|-" || exit 1
grep -q 'mixed_workload/packets.csv' "$work/rates.svg" || fail "the title does not name the trace"
grep -q 'ivb-ep' "$work/rates.svg" || fail "the title does not name the CPU"
grep -q '<text>simulated time (us)</text>' "$work/rates.svg" || fail "no time axis label with its unit"
[ "$(ls "$work")" = "$(printf 'err\nout\nrates.svg')" ] || fail "files left: $(ls "$work")"
echo "ok: events and a metric"

# One series per event and socket.
"$stat" --trace "$trace" --sockets 2 -e qpi0/RxL_FLITS_G1.DRS_DATA -I 0.001 --plot "$work/sockets.svg" \
  > "$work/out" 2> "$work/err" || fail "sockets run: $(cat "$work/err")"
check_svg "$work/sockets.svg" "$work/out" \
  "events/s|S0 qpi0/RxL_FLITS_G1.DRS_DATA|qpi0/RxL_FLITS_G1.DRS_DATA|S0" \
  "events/s|S1 qpi0/RxL_FLITS_G1.DRS_DATA|qpi0/RxL_FLITS_G1.DRS_DATA|S1" || exit 1

# Link bandwidth and utilization per direction: metrics only (their input
# events are not drawn), two panels.
"$stat" --trace "$trace" -M qpi_rx_data_bw -M qpi_tx_data_bw -M qpi_rx_util -M qpi_tx_util -I 0.0005 \
  --plot "$work/links.svg" > "$work/out" 2> "$work/err" || fail "links run: $(cat "$work/err")"
want=()
for m in qpi_rx_data_bw qpi_tx_data_bw; do for p in 0 1; do want+=("MB/s|$m.qpi$p|$m.qpi$p|-"); done; done
for m in qpi_rx_util qpi_tx_util; do for p in 0 1; do want+=("%|$m.qpi$p|$m.qpi$p|-"); done; done
check_svg "$work/links.svg" "$work/out" "${want[@]}" || exit 1

# PNG: the signature and the size (1000 wide, 110 + 300 per panel high).
"$stat" --trace "$trace" -e qpi0/RxL_FLITS_G1.DRS_DATA -M qpi_rx_util -I 0.0005 --plot "$work/rates.PNG" \
  > "$work/out" 2> "$work/err" || fail "png run: $(cat "$work/err")"
python3 - "$work/rates.PNG" <<'PY' || exit 1
import struct, sys
d = open(sys.argv[1], 'rb').read()
if d[:8] != b'\x89PNG\r\n\x1a\n' or d[12:16] != b'IHDR':
    print('FAIL: not a PNG'); sys.exit(1)
w, h = struct.unpack('>II', d[16:24])
if (w, h) != (1000, 710) or len(d) < 5000:
    print('FAIL: PNG %dx%d, %d bytes (expected 1000x710)' % (w, h, len(d))); sys.exit(1)
print('ok: PNG %dx%d, %d bytes' % (w, h, len(d)))
PY

# On "hardware": a fake machine tree (as pmon_stat_hw.sh makes it), wall-clock
# intervals; the title names the host, the axis is time.
root=$work/hw
put() {  # FILE OFFSET VALUE BYTES, little-endian
  local file=$1 off=$2 val=$3 n=$4 i bytes=""
  for ((i = 0; i < n; i++)); do bytes+=$(printf '\\x%02x' $(((val >> (8 * i)) & 0xff))); done
  printf "$bytes" | dd of="$file" bs=1 seek="$off" conv=notrunc status=none
}
for slot in "ff:13.1 0x0e34" "ff:08.2 0x0e32" "ff:08.6 0x0e86"; do
  d=$root/sys/bus/pci/devices/0000:${slot% *}
  mkdir -p "$d"
  head -c 4096 /dev/zero > "$d/config"
  put "$d/config" 0 0x8086 2
  put "$d/config" 2 "${slot#* }" 2
done
mkdir -p "$root/proc" "$root/sys/devices/system/cpu"
echo 0-1 > "$root/sys/devices/system/cpu/online"
printf 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 62\n\n' > "$root/proc/cpuinfo"
for c in 0 1; do
  mkdir -p "$root/dev/cpu/$c" "$root/sys/devices/system/cpu/cpu$c/topology"
  : > "$root/dev/cpu/$c/msr"
  echo 0 > "$root/sys/devices/system/cpu/cpu$c/topology/physical_package_id"
done
"$stat" --target hw --hw-root "$root" -e qpi0/RxL_FLITS_G1.DRS_DATA --duration 0.3 -I 100 --plot "$work/hw.svg" \
  > "$work/out" 2> "$work/err" || fail "hw run: $(cat "$work/err")"
check_svg "$work/hw.svg" "$work/out" "events/s|qpi0/RxL_FLITS_G1.DRS_DATA|qpi0/RxL_FLITS_G1.DRS_DATA|-" || exit 1
grep -q "pmon-stat on $(hostname)" "$work/hw.svg" || fail "the hw title does not name the host"
grep -q 'Ivy Bridge-EP' "$work/hw.svg" || fail "the hw title does not name the CPU"
grep -q '<text>time (ms)</text>' "$work/hw.svg" || fail "no wall-clock time axis"
rm -rf "$root" "$work/hw.svg"
echo "ok: the hardware target"

# Errors, before anything is measured (nothing on stdout, no file).
expect() {  # name, exit status, stderr fragment, command...
  local name=$1 code=$2 want=$3; shift 3
  "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  [ "$rc" = "$code" ] || fail "$name: exit $rc, expected $code ($(cat "$work/err"))"
  grep -qF -- "$want" "$work/err" || fail "$name: stderr '$(cat "$work/err")' lacks '$want'"
  [ -s "$work/out" ] && fail "$name: measured anyway: $(head -3 "$work/out")"
  echo "ok: $name"
}
expect no_interval 2 "--plot draws the intervals of -I" "$stat" --trace "$trace" -e qpi0/CLOCKTICKS --plot "$work/x.svg"
expect bad_extension 2 "must end in .svg or .png" \
  "$stat" --trace "$trace" -e qpi0/CLOCKTICKS -I 0.001 --plot "$work/x.pdf"
expect no_gnuplot 1 "gnuplot-nox" env PATH=/nonexistent "$stat" --trace "$trace" -e qpi0/CLOCKTICKS -I 0.001 \
  --plot "$work/x.svg"
expect unwritable 1 "$work/no/such/dir/x.svg: cannot write: No such file or directory" \
  "$stat" --trace "$trace" -e qpi0/CLOCKTICKS -I 0.001 --plot "$work/no/such/dir/x.svg"
ls "$work" | grep -q '^x\.' && fail "a file was left: $(ls "$work")"
echo "all plot checks passed"
