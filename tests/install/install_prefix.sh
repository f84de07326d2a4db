#!/bin/sh
# install_prefix.sh CMAKE BUILD_DIR PREFIX: a fresh `cmake --install` of BUILD_DIR into PREFIX.
set -eu
cmake=$1 build=$2 prefix=$3
rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$prefix.log" 2>&1 || { cat "$prefix.log"; exit 1; }
ls "$prefix/bin/mpicc" "$prefix/bin/mpiexec" "$prefix/include/mpi.h" >/dev/null
echo "installed into $prefix"
