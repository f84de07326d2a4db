#!/bin/sh
# install_check.sh CMAKE BUILD_DIR SOURCE_DIR [fortran]: installs the build into a fresh prefix and
# builds and runs programs with the installed mpicc / mpicxx / mpirun (and mpifort, with fortran).
set -eu
cmake=$1 build=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$tmp/prefix
"$cmake" --install "$build" --prefix "$p" > "$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
for tool in mpiexec mpirun mpicc mpicxx mpic++ mpicc_abi mpicxx_abi; do
  [ -x "$p/bin/$tool" ] || { echo "FAIL: $p/bin/$tool is missing"; exit 1; }
done
[ -L "$p/bin/mpirun" ] || { echo "FAIL: mpirun is not a symbolic link"; exit 1; }
show=$("$p/bin/mpicc" -show x.c)
echo "$show"
case $show in
  *"-I$p/include"*"-L$p/"*"-Wl,-rpath,$p/"*"-lmpi_abi") ;;
  *) echo "FAIL: installed mpicc does not point into $p"; exit 1 ;;
esac
case $show in *"$build"*) echo "FAIL: installed mpicc points into the build tree"; exit 1 ;; esac
# The library's file names and SONAME (MPI-5.0 21.2.1: libmpi_abi, ABI version 1).
lib=$(ls "$p"/lib*/libmpi_abi.so.1 2>/dev/null | head -n 1)
[ -n "$lib" ] || { echo "FAIL: no libmpi_abi.so.1 under $p"; ls -R "$p"; exit 1; }
[ -e "${lib%.1}" ] || { echo "FAIL: no libmpi_abi.so beside $lib"; exit 1; }
if ls "$p"/lib*/libmpi.so* >/dev/null 2>&1; then echo "FAIL: a libmpi.so was installed"; exit 1; fi
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libmpi_abi.so.1 ] || { echo "FAIL: SONAME is '$soname', not libmpi_abi.so.1"; exit 1; }
# pkg-config finds the same flags as the wrapper.
pc=$(ls "$p"/lib*/pkgconfig/mpi_abi.pc 2>/dev/null | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no mpi_abi.pc under $p"; exit 1; }
if command -v pkg-config >/dev/null 2>&1; then
  flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs mpi_abi)
  echo "pkg-config: $flags"
  case $flags in
    *"-I$p/include"*"-L$p/"*"-lmpi_abi"*) ;;
    *) echo "FAIL: pkg-config mpi_abi gives '$flags'"; exit 1 ;;
  esac
fi
"$p/bin/mpicc" "$src/hello_header.c" -o "$tmp/c"
"$p/bin/mpic++" "$src/hello_header.cpp" -o "$tmp/cxx"
env -u LD_LIBRARY_PATH "$p/bin/mpirun" -n 2 "$tmp/c"
env -u LD_LIBRARY_PATH "$tmp/cxx"
# The Fortran bindings, when the build has them (4th argument "fortran").
if [ "${4-}" = fortran ]; then
  for tool in mpifort mpif90 mpif77 mpifort_abi; do
    [ -x "$p/bin/$tool" ] || { echo "FAIL: $p/bin/$tool is missing"; exit 1; }
  done
  for f in mpif.h mpi.mod mpi_f08.mod; do
    [ -f "$p/include/$f" ] || { echo "FAIL: $p/include/$f is missing"; exit 1; }
  done
  show=$("$p/bin/mpifort" -show x.f90)
  case $show in
    *"-I$p/include"*"-L$p/"*"-lmpifort_abi -lmpi_abi") ;;
    *) echo "FAIL: installed mpifort gives '$show'"; exit 1 ;;
  esac
  (cd "$tmp" && "$p/bin/mpifort" "$src/hello_fortran.f90" -o "$tmp/f")
  env -u LD_LIBRARY_PATH "$p/bin/mpirun" -n 2 "$tmp/f"
fi
echo PASS
