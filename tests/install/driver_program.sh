#!/usr/bin/env bash
# The program of docs/driver.md ("A complete program"), built out of tree
# against an installed pmonsim the two ways that page shows (its CMakeLists.txt
# with pmonsim::driver, and pmonsim.pc), then run on the model with the
# installed `pmonsim exec` on the bundled DRS example: it must print what the
# page says. The program, the CMakeLists.txt, the command line and the output
# are all read from docs/driver.md, so the page cannot drift from the package.
# Usage: driver_program.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
doc=$src/docs/driver.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The fenced block of kind $2 after the heading line $1 in docs/driver.md.
block() {
  awk -v head="$1" -v kind="$2" '
    $0 == head { in_section = 1; next }
    in_section && /^## / { exit }
    in_section && !inside && $0 == "```" kind { inside = 1; next }
    inside && /^```/ { exit }
    inside { print }' "$doc"
}
mkdir -p "$work/app"
block "## A complete program" cpp > "$work/app/main.cpp"
block "## Building it against the installed package" cmake > "$work/app/CMakeLists.txt"
block "## Building it against the installed package" text > "$work/expected.txt"
for f in main.cpp CMakeLists.txt; do
  [ -s "$work/app/$f" ] || fail "no $f in $doc"
done
[ -s "$work/expected.txt" ] || fail "no expected output in $doc"
grep -q 'hw_target t;' "$work/app/main.cpp" || fail "the program of $doc is not the hw_target one"

prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
[ -f "$prefix/include/pmonsim/driver/hw_target.h" ] || fail "driver headers not installed"

# 1. CMake: find_package(pmonsim) and pmonsim::driver only.
# (Makefiles whatever CMAKE_GENERATOR says: the link line is read from link.txt.)
cmake -G "Unix Makefiles" -S "$work/app" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
exe=$(find "$work/cmake-build" -maxdepth 1 -type f -executable -name 'pmon_*' | head -1)
[ -n "$exe" ] || fail "the CMake build made no program"
# The hardware path links the description library and nothing of the model.
link=$(cat "$work/cmake-build/CMakeFiles/$(basename "$exe").dir/link.txt")
[[ $link == *libpmonsim_driver.a* && $link == *libpmonsim_desc.a* ]] || fail "not linked with driver and desc: $link"
[[ $link != *libpmonsim_core.a* && $link != *libpmonsim.a* && $link != *systemc* ]] ||
  fail "the hardware path links the counting engine or SystemC: $link"
if readelf -d "$exe" | grep -q 'NEEDED.*systemc'; then fail "the program needs libsystemc"; fi

# 2. pkg-config: the page's command line, with the scratch prefix's pmonsim.pc.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/$(gcc -print-multiarch)/pkgconfig:${PKG_CONFIG_PATH:-}"
pc_cmd=$(block "## Building it against the installed package" sh | grep '^g++ ')
[ -n "$pc_cmd" ] || fail "no g++ command line in $doc"
(cd "$work/app" && eval "$pc_cmd")
pc_exe=$work/app/$(sed -n 's/.* -o \([^ ]*\).*/\1/p' <<<"$pc_cmd")
[ -x "$pc_exe" ] || fail "the pkg-config command made no program"

# 3. Both on the model, under the installed pmonsim exec, as the page runs it.
# (In a PMONSIM_SANITIZE build the program is instrumented and the interposer,
# preloaded ahead of libasan, is not: ASan must not insist on coming first.)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
run_cmd=$(block "## Building it against the installed package" sh | grep '^pmonsim exec ')
[ -n "$run_cmd" ] || fail "no pmonsim exec command line in $doc"
for program in "$exe" "$pc_exe"; do
  cmd=${run_cmd//\/usr\/share\/doc\/pmonsim\/examples/$src/traces}
  cmd=${cmd/pmonsim exec/$prefix/bin/pmonsim exec}
  cmd=${cmd/.\/pmon_example/$program}
  (cd "$work" && eval "$cmd") > "$work/out.txt"
  diff -u "$work/expected.txt" "$work/out.txt" || fail "$(basename "$program"): output differs from $doc"
done
# Not vacuous: the counts of the example's README (100 DRS responses of 8 data flits).
grep -Eq '^S0 qpi0/RxL_FLITS_G1\.DRS_DATA +800$' "$work/out.txt" || fail "DRS_DATA is not 800"
grep -Eq '^S0 uncore_qpi_0/event=0x138,.* +100$' "$work/out.txt" || fail "the filtered CTO_COUNT is not 100"
echo "driver program OK: built with pmonsim::driver (no model, no SystemC) and with pmonsim.pc, runs on the model"
