#!/usr/bin/env bash
# The Debian packages of the build (cmake/packaging.cmake): cpack -G DEB into a
# scratch directory; the two packages' fields, computed dependencies and
# contents; nothing installed by the build missing from them; both unpacked
# with dpkg -x (nothing is installed on this machine) and the unpacked tools
# run on the unpacked example; a program built against the unpacked dev
# package; and lintian finds no error (its warnings are printed).
# Usage: package_deb.sh CPACK SOURCE_DIR BUILD_DIR VERSION
# Exit 77 (skipped) without dpkg-deb, dpkg-shlibdeps or lintian
# (scripts/setup-debian.sh installs them).
set -euo pipefail
cpack=$1 src=$2 build=$3 version=$4
for tool in dpkg-deb dpkg-shlibdeps file lintian; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing (bash scripts/setup-debian.sh)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. Build the packages.
(cd "$build" && "$cpack" -G DEB -B "$work/out") > "$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack"; }
arch=$(dpkg --print-architecture)
tools_deb=$work/out/pmonsim_${version}-1_${arch}.deb
dev_deb=$work/out/libpmonsim-dev_${version}-1_${arch}.deb
[ "$(ls "$work/out"/*.deb | wc -l)" = 2 ] || fail "not two packages: $(ls "$work/out")"
[ -f "$tools_deb" ] && [ -f "$dev_deb" ] || fail "package names: $(ls "$work/out")"

# 2. Control fields.
field() { dpkg-deb -f "$1" "$2"; }
[ "$(field "$tools_deb" Package)" = pmonsim ] || fail "tools package name"
[ "$(field "$dev_deb" Package)" = libpmonsim-dev ] || fail "dev package name"
[ "$(field "$tools_deb" Version)" = "$version-1" ] || fail "version $(field "$tools_deb" Version)"
[ "$(field "$tools_deb" Section)" = devel ] && [ "$(field "$dev_deb" Section)" = libdevel ] || fail "sections"
[[ "$(field "$tools_deb" Maintainer)" == *"<"*"@"*">" ]] || fail "maintainer has no address"
# The tools' dependencies come from dpkg-shlibdeps, with the versions it works out.
deps=$(field "$tools_deb" Depends)
echo "pmonsim Depends: $deps"
for lib in 'libc6 (>= ' 'libstdc++6 (>= ' 'libsystemc (>= ' libboost-program-options 'zlib1g (>= ' libcapstone; do
  [[ $deps == *"$lib"* ]] || fail "pmonsim does not depend on $lib"
done
dev_deps=$(field "$dev_deb" Depends)
echo "libpmonsim-dev Depends: $dev_deps"
[[ $dev_deps == *libsystemc-dev* ]] || fail "libpmonsim-dev does not depend on libsystemc-dev"

# 3. Contents: each file where it belongs, and every file the build installs
#    (cmake --install) in one of the two packages.
dpkg-deb -c "$tools_deb" | awk '{print $6}' | sed 's|^\./||' | grep -v '/$' | sort > "$work/tools.list"
dpkg-deb -c "$dev_deb" | awk '{print $6}' | sed 's|^\./||' | grep -v '/$' | sort > "$work/dev.list"
has() { grep -Eq "^$2\$" "$work/$1.list" || fail "$1 package lacks $2"; }
for tool in pmonsim pmon-stat pmonsim-gen-trace pmonsim-serve; do has tools "usr/bin/$tool"; done
has tools 'usr/lib/(.*/)?pmonsim/libpmonsim-preload\.so'
has tools 'usr/share/doc/pmonsim/copyright'
has tools 'usr/share/doc/pmonsim/changelog\.Debian\.gz'
has tools 'usr/share/doc/pmonsim/README\.md'
has tools 'usr/share/doc/pmonsim/docs/user-guide\.md'
has tools 'usr/share/doc/pmonsim/docs/driver\.md'
has tools 'usr/share/doc/pmonsim/examples/drs_data_transfer/packets\.csv'
has dev 'usr/include/pmonsim/driver/hw_target\.h'
has dev 'usr/include/pmonsim/sc/uncore_system\.h'
for lib in pmonsim pmonsim_core pmonsim_desc pmonsim_driver; do has dev "usr/lib/(.*/)?lib$lib\\.a"; done
has dev 'usr/lib/(.*/)?cmake/pmonsim/pmonsimConfig\.cmake'
has dev 'usr/lib/(.*/)?pkgconfig/pmonsim\.pc'
has dev 'usr/share/doc/libpmonsim-dev/copyright'
has dev 'usr/share/doc/libpmonsim-dev/changelog\.Debian\.gz'
if grep -E '^usr/(include|lib/(.*/)?cmake)/' "$work/tools.list"; then fail "development files in pmonsim"; fi
if grep -E '^usr/bin/' "$work/dev.list"; then fail "programs in libpmonsim-dev"; fi
# The manual pages and completion the build installs (man/, completion/) ride
# along: every program of the package has its page when there are pages.
if grep -q '^usr/share/man/man1/' "$work/tools.list"; then
  for tool in pmonsim pmon-stat pmonsim-gen-trace pmonsim-serve; do has tools "usr/share/man/man1/$tool\\.1\\.gz"; done
fi
cmake --install "$build" --prefix "$work/plain" > /dev/null
(cd "$work/plain" && find . -type f -o -type l) | sed 's|^\./|usr/|' | sort > "$work/installed.list"
sort -u "$work/tools.list" "$work/dev.list" > "$work/packaged.list"
missing=$(comm -23 "$work/installed.list" "$work/packaged.list")
[ -z "$missing" ] || fail "installed by the build but in no package: $missing"
[ "$(grep -cv '/copyright$\|/changelog\.Debian\.gz$' "$work/packaged.list")" = "$(wc -l < "$work/installed.list")" ] ||
  fail "the packages hold files the build does not install"
echo "contents OK: $(wc -l < "$work/tools.list") files in pmonsim, $(wc -l < "$work/dev.list") in libpmonsim-dev"

# 4. The unpacked tools on the unpacked example.
root=$work/root
dpkg -x "$tools_deb" "$root"
dpkg -x "$dev_deb" "$root"
bin=$root/usr/bin
ex=$root/usr/share/doc/pmonsim/examples/drs_data_transfer
for tool in pmonsim pmon-stat pmonsim-gen-trace; do
  "$bin/$tool" --version | head -1 | grep -q "^$tool $version" || fail "$tool --version"
done
"$bin/pmonsim" --trace "$ex/packets.csv" --program "$ex/program.sh" > "$work/replay.txt"
diff -u "$src/tests/golden/drs_data_transfer.txt" "$work/replay.txt" || fail "the packaged pmonsim's report differs from the golden one"
"$bin/pmon-stat" --trace "$ex/packets.csv" -x, -e qpi0/RxL_FLITS_G1.DRS_DATA,qpi0/RxL_FLITS_G2.NCB_DATA > "$work/stat.csv"
grep -q '^S0,1,800,,qpi0/RxL_FLITS_G1.DRS_DATA,' "$work/stat.csv" || fail "pmon-stat DRS_DATA: $(cat "$work/stat.csv")"
grep -q '^S0,1,160,,qpi0/RxL_FLITS_G2.NCB_DATA,' "$work/stat.csv" || fail "pmon-stat NCB_DATA: $(cat "$work/stat.csv")"
"$bin/pmonsim-gen-trace" --help > /dev/null
# pmonsim exec finds the unpacked pmonsim-serve and preload library beside it:
# pmon-stat's hardware path on the served model counts what the model does.
"$bin/pmonsim" exec --trace "$ex/packets.csv" --report none -- \
  "$bin/pmon-stat" --target hw -x, -e qpi0/RxL_FLITS_G1.DRS_DATA --duration 0.000002 > "$work/exec.csv"
grep -q '^S0,1,800,,qpi0/RxL_FLITS_G1.DRS_DATA,' "$work/exec.csv" || fail "pmon-stat under exec: $(cat "$work/exec.csv")"
echo "unpacked tools OK: replay equals the golden report, pmon-stat counts 800 and 160, exec runs"

# 5. The dev package: docs/driver.md's program through the unpacked pmonsim.pc.
awk '$0 == "## A complete program" { s = 1; next } s && /^## / { exit }
     s && !i && $0 == "```cpp" { i = 1; next } i && /^```/ { exit } i { print }' \
  "$root/usr/share/doc/pmonsim/docs/driver.md" > "$work/main.cpp"
# (In a PMONSIM_SANITIZE build the program is instrumented and the interposer,
# preloaded ahead of libasan, is not: ASan must not insist on coming first.)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
pc_dir=$(dirname "$(grep -E 'pkgconfig/pmonsim\.pc$' "$work/dev.list")")
PKG_CONFIG_PATH=$root/$pc_dir g++ "$work/main.cpp" \
  $(PKG_CONFIG_PATH=$root/$pc_dir pkg-config --cflags --libs pmonsim) -o "$work/pmon_example"
"$bin/pmonsim" exec --trace "$ex/packets.csv" --report none -- "$work/pmon_example" > "$work/driver.txt"
grep -Eq '^S0 qpi0/RxL_FLITS_G1\.DRS_DATA +800$' "$work/driver.txt" || fail "driver program: $(cat "$work/driver.txt")"
echo "dev package OK: the driver program builds against it and counts 800"

# 6. lintian: no error. Its warnings and notes go to the test's output.
lintian_rc=0
lintian --fail-on error --tag-display-limit 0 -I "$tools_deb" "$dev_deb" > "$work/lintian.txt" 2>&1 || lintian_rc=$?
cat "$work/lintian.txt"
[ "$lintian_rc" = 0 ] || fail "lintian found errors"
if grep -q '^E: ' "$work/lintian.txt"; then fail "lintian errors"; fi
echo "packages OK: $(grep -c '^W: ' "$work/lintian.txt" || true) lintian warning(s), no error"
