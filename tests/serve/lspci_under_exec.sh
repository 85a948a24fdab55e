#!/usr/bin/env bash
# Debian's lspci and setpci (libpci, its sysfs and procfs back ends) under
# `pmonsim exec` find exactly the modeled uncore devices with the device IDs
# of the manuals (golden/lspci_*.txt, written from 327043-001 and 329468-002),
# and select devices by ID as on a real machine.
# Usage: lspci_under_exec.sh PMONSIM GOLDEN_DIR
set -euo pipefail
pmonsim=$1 golden=$2
command -v lspci >/dev/null || { echo "SKIP: pciutils is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$pmonsim" exec --sockets 2 --report none -- lspci -n -d 8086: > "$work/ivb"
diff -u "$golden/lspci_ivb_ep_2s.txt" "$work/ivb" || fail "ivb-ep, 2 sockets: devices differ"
"$pmonsim" exec --cpu snb-ep --report none -- lspci -n -d 8086: > "$work/snb"
diff -u "$golden/lspci_snb_ep_1s.txt" "$work/snb" || fail "snb-ep: devices differ"
# The procfs back end (/proc/bus/pci) finds the same devices.
"$pmonsim" exec --sockets 2 --report none -- lspci -A linux-proc -n -d 8086: > "$work/proc"
diff -u "$golden/lspci_ivb_ep_2s.txt" "$work/proc" || fail "linux-proc back end: devices differ"

# Selection by ID, configuration reads and writes through both back ends.
"$pmonsim" exec --sockets 2 --report none -- sh -e -c '
  setpci -d 8086:0e32 0.L
  setpci -s 7f:08.2 d8.L=00400014
  setpci -A linux-proc -s 7f:08.2 d8.L
  lspci -s ff:13.1 -x' > "$work/sel"
expected="0e328086
0e328086
00400014"
[ "$(head -3 "$work/sel")" = "$expected" ] || { cat "$work/sel"; fail "setpci selection by ID, or a write read back"; }
grep -q '^00: 86 80 34 0e 00 00 00 00 04 00 01 11 00 00 80 00$' "$work/sel" || { cat "$work/sel"; fail "lspci -x header of 13.1"; }
# A listing of every function's whole configuration space is no register
# access: no diagnostic, even for offsets the model does not implement.
"$pmonsim" exec --sockets 2 --strict --report none -- lspci -xxxx -d 8086: > "$work/dump" || fail "lspci -xxxx was diagnosed"
[ "$(grep -c '^ff0: ' "$work/dump")" = 30 ] || fail "lspci -xxxx did not list 30 functions of 4 KiB"
# No host device shows through.
"$pmonsim" exec --report none -- lspci -n > "$work/all"
[ "$(grep -c '' "$work/all")" = 15 ] || { cat "$work/all"; fail "host devices listed"; }
echo "ok: lspci and setpci see the modeled devices"
