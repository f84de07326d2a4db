#!/bin/sh
# build_project.sh cmake|meson|pkg-config PREFIX SOURCE WORK: builds the project in SOURCE (the
# program hello.c) as a user of the Baton installed in PREFIX would, with PREFIX/bin first in PATH,
# then runs it on 2 ranks with PREFIX's mpiexec and checks that it ran on Baton's library from
# PREFIX (not on another MPI of the system).
set -eu
tool=$1 prefix=$2 src=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
export PATH="$prefix/bin:$PATH" MPI_HOME="$prefix" MPICC="$prefix/bin/mpicc" MPICXX="$prefix/bin/mpicxx"
unset LD_LIBRARY_PATH
case $tool in
  cmake)
    cmake -S "$src" -B "$work/build" -G Ninja > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
    grep -E "Found MPI_C|MPI_C_|Baton" "$work/configure.log" || true
    cmake --build "$work/build" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
    exe=$work/build/hello ;;
  meson)
    command -v meson >/dev/null 2>&1 || { echo "FAIL: meson is not installed (sh scripts/deps.sh installs it)"; exit 1; }
    cp "$src/../cmake_project/hello.c" "$work/hello.c"
    cp "$src/meson.build" "$work/meson.build"
    # Meson asks pkg-config for Open MPI's ompi-c before it asks $MPICC: on a host with Open MPI's
    # development files that wins, whatever MPI the user chose. Limiting pkg-config to Baton's
    # prefix (as a user of a second MPI does) leaves the choice to $MPICC (docs/abi.md).
    pc=$(dirname "$(ls "$prefix"/lib*/pkgconfig/mpi_abi.pc | head -n 1)")
    (cd "$work" && PKG_CONFIG_LIBDIR=$pc meson setup build > setup.log 2>&1) || { cat "$work/setup.log"; exit 1; }
    grep -i "mpi" "$work/setup.log" || true
    (cd "$work" && meson compile -C build > build.log 2>&1) || { cat "$work/build.log"; exit 1; }
    exe=$work/build/hello ;;
  pkg-config)
    command -v pkg-config >/dev/null 2>&1 || { echo "FAIL: pkg-config is not installed (sh scripts/deps.sh installs it)"; exit 1; }
    pc=$(dirname "$(ls "$prefix"/lib*/pkgconfig/mpi_abi.pc | head -n 1)")
    flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs mpi_abi)
    echo "pkg-config --cflags --libs mpi_abi: $flags"
    # shellcheck disable=SC2086
    cc "$src/hello.c" -o "$work/hello" $flags
    exe=$work/hello ;;
  *) echo "usage: build_project.sh cmake|meson|pkg-config PREFIX SOURCE WORK" >&2; exit 2 ;;
esac
lib=$(ldd "$exe" | awk '/libmpi/ { print $1, $3 }')
echo "$exe uses: $lib"
case $lib in
  "libmpi_abi.so.1 $prefix/"*) ;;
  *) echo "FAIL: $exe does not load libmpi_abi.so.1 from $prefix"; exit 1 ;;
esac
out=$("$prefix/bin/mpiexec" -n 2 --timeout 60 "$exe")
echo "$out"
n=$(printf '%s\n' "$out" | grep -c "^hello from rank [01] of 2 (MPI 5.0, Baton [0-9.]*)$" || true)
[ "$n" = 2 ] || { echo "FAIL: expected a line from each of 2 ranks"; exit 1; }
echo PASS
