#!/usr/bin/env bash
# pmon-stat --target hw against a fake machine tree (regular files for
# /dev/cpu/N/msr and sysfs config space, and /proc/cpuinfo): checks the bytes
# it leaves in the registers and the counts it reports from what it reads,
# and its error messages.
set -euo pipefail
stat=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Write N little-endian bytes of VALUE at OFFSET of FILE.
put() {
  local file=$1 off=$2 val=$3 n=$4 i bytes=""
  for ((i = 0; i < n; i++)); do bytes+=$(printf '\\x%02x' $(((val >> (8 * i)) & 0xff))); done
  printf "$bytes" | dd of="$file" bs=1 seek="$off" conv=notrunc status=none
}
# N bytes at OFFSET of FILE as a number.
get() { od -An -t u"$3" -j "$2" -N "$3" "$1" | tr -d ' '; }
pci() {  # slot vendor device
  local d=$root/sys/bus/pci/devices/$1
  mkdir -p "$d"
  head -c 4096 /dev/zero > "$d/config"
  put "$d/config" 0 "$2" 2
  put "$d/config" 2 "$3" 2
}

mkdir -p "$root/proc" "$root/sys/devices/system/cpu"
echo 0-1 > "$root/sys/devices/system/cpu/online"
printf 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 62\n\n' > "$root/proc/cpuinfo"

# Without the msr module: an error that says what to do.
pci 0000:ff:13.1 0x8086 0x0e34
pci 0000:ff:08.2 0x8086 0x0e32
pci 0000:ff:08.6 0x8086 0x0e86
out=$("$stat" --target hw --hw-root "$root" -e qpi0/CLOCKTICKS --duration 0 2>&1) && fail "no msr module accepted"
[[ $out == *"modprobe msr"* ]] || fail "no modprobe advice: $out"

for c in 0 1; do
  mkdir -p "$root/dev/cpu/$c" "$root/sys/devices/system/cpu/cpu$c/topology"
  : > "$root/dev/cpu/$c/msr"
  echo 0 > "$root/sys/devices/system/cpu/cpu$c/topology/physical_package_id"
done
cfg=$root/sys/bus/pci/devices/0000:ff:08.2/config
put "$cfg" $((0xA0)) 800 4             # CTR0: what the counter will read

out=$("$stat" --target hw --hw-root "$root" --duration 0 -x, \
      -e 'qpi0/RxL_FLITS_G1.DRS_DATA,uncore_qpi_0/event=0x138,match_mc=0xe,mask_mc=0xf,mask_opc=0xc/,ubox_fixed/UCLK')
echo "$out"
[[ $(echo "$out" | grep -c ,) == 3 ]] || fail "three counts expected"
echo "$out" | grep -q '^S0,1,800,,qpi0/RxL_FLITS_G1.DRS_DATA,' || fail "DRS_DATA count"
echo "$out" | grep -q '^S0,1,0,,uncore_qpi_0/event=0x138' || fail "CTO_COUNT count"
# (No UBox count check: in a flat file MSR 0xC08's 8 bytes overlap MSR 0xC09.)
echo "$out" | grep -q '^S0,1,[0-9]*,,ubox_fixed/UCLK,' || fail "UCLK line"

# The registers as pmon-stat left them: frozen (stop), events enabled, filter set.
[[ $(get "$cfg" $((0xF4)) 4) == $((0x30100)) ]] || fail "BOX_CTL $(get "$cfg" $((0xF4)) 4)"
[[ $(get "$cfg" $((0xD8)) 4) == $((0x600802)) ]] || fail "CTL0"
[[ $(get "$cfg" $((0xDC)) 4) == $((0x600038)) ]] || fail "CTL1"
flt=$root/sys/bus/pci/devices/0000:ff:08.6/config
[[ $(get "$flt" $((0x228)) 4) == $((0x1c00)) && $(get "$flt" $((0x238)) 4) == $((0x1f80)) ]] || fail "filter"
[[ $(get "$root/dev/cpu/0/msr" $((0xC08)) 8) == $((0x400000)) ]] || fail "fixed CTL"

# An unsupported CPU is named.
printf 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n\n' > "$root/proc/cpuinfo"
out=$("$stat" --target hw --hw-root "$root" -e qpi0/CLOCKTICKS --duration 0 2>&1) && fail "SKX accepted"
[[ $out == *"unsupported CPU"*"model 0x55"* ]] || fail "unsupported CPU message: $out"
echo "pmon-stat hw target OK"
