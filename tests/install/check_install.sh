#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds the example platform
# against it twice: through the exported CMake package and through pkg-config.
set -euo pipefail
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/testbench/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
"$work/cmake-build/example_platform" | grep -q "5 samples"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/$(gcc -print-multiarch)/pkgconfig:${PKG_CONFIG_PATH:-}"
g++ "$src/testbench/example_platform.cpp" $(pkg-config --cflags --libs pmonsim) -o "$work/pc_example"
"$work/pc_example" | grep -q "5 samples"
# The installed pmonsim finds pmonsim-serve and the interposer where they were installed.
[ "$("$work/prefix/bin/pmonsim" exec --report none -- sh -c 'grep -c "^processor" /proc/cpuinfo')" = 16 ]
echo "install OK: CMake package and pkg-config both build and run the example platform; pmonsim exec runs"
