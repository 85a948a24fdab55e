#!/usr/bin/env bash
# An example program of traces/ run by Debian's own msr-tools and pciutils
# (plain sh, real rdmsr/wrmsr/setpci) under `pmonsim exec` must print the same
# register values and end with the same report as `pmonsim --script` running
# the same file on the same trace.
# Usage: examples_under_exec.sh PMONSIM EXAMPLE_DIR
set -euo pipefail
pmonsim=$1 dir=$2
for tool in rdmsr wrmsr setpci; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (msr-tools, pciutils)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
traces=()
for f in "$dir"/packets.csv "$dir"/events.csv; do [ -f "$f" ] && traces+=(--trace "$f"); done

# The example's program, time for the trace to pass, then every counter read back.
{
  cat "$dir/program.sh"
  echo "sleep 0.00001"
  echo "rdmsr -a -x 0xc09"
  echo "rdmsr -p 0 -0 -x 0xc16"
  echo "rdmsr -p 0 -d 0xc17"
  echo "rdmsr -p 0 -c 0xc01"
  for fn in 13.1 08.2 09.2; do echo "setpci -s ff:$fn a0.L a4.L a8.L ac.L b0.L b4.L b8.L bc.L d8.L f4.L f8.L"; done
  echo "setpci -s ff:08.6 228.L 22c.L 238.L 23c.L"
  echo "setpci -s ff:08.0 d4.L"
} > "$work/session.sh"

"$pmonsim" "${traces[@]}" --script "$work/session.sh" --report csv > "$work/script.out"
"$pmonsim" exec "${traces[@]}" --report csv -- sh -e "$work/session.sh" > "$work/exec.out"
if ! diff -u "$work/script.out" "$work/exec.out"; then
  echo "FAIL: $(basename "$dir"): real tools under pmonsim exec differ from pmonsim --script"
  exit 1
fi
# Not vacuous: the session printed register values and a report with counts.
lines=$(grep -c '' "$work/exec.out")
[ "$lines" -gt 40 ] || { echo "FAIL: only $lines lines of output"; exit 1; }
echo "ok: $(basename "$dir"): $lines identical lines"
