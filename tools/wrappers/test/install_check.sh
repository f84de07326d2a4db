#!/bin/sh
# install_check.sh CMAKE BUILD_DIR SOURCE_DIR: installs the build into a fresh prefix and
# builds and runs programs with the installed mpicc / mpicxx / mpirun.
set -eu
cmake=$1 build=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$tmp/prefix
"$cmake" --install "$build" --prefix "$p" > "$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
for tool in mpiexec mpirun mpicc mpicxx mpic++; do
  [ -x "$p/bin/$tool" ] || { echo "FAIL: $p/bin/$tool is missing"; exit 1; }
done
[ -L "$p/bin/mpirun" ] || { echo "FAIL: mpirun is not a symbolic link"; exit 1; }
show=$("$p/bin/mpicc" -show x.c)
echo "$show"
case $show in
  *"-I$p/include"*"-L$p/"*"-Wl,-rpath,$p/"*"-lmpi"*) ;;
  *) echo "FAIL: installed mpicc does not point into $p"; exit 1 ;;
esac
case $show in *"$build"*) echo "FAIL: installed mpicc points into the build tree"; exit 1 ;; esac
"$p/bin/mpicc" "$src/hello_header.c" -o "$tmp/c"
"$p/bin/mpic++" "$src/hello_header.cpp" -o "$tmp/cxx"
env -u LD_LIBRARY_PATH "$p/bin/mpirun" -n 2 "$tmp/c"
env -u LD_LIBRARY_PATH "$tmp/cxx"
echo PASS
