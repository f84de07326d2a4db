#!/bin/sh
# build_run.sh WRAPPER SOURCE [LAUNCHER ARGS...]: builds SOURCE with WRAPPER, then runs it
# (under LAUNCHER ARGS when given) with LD_LIBRARY_PATH unset, so libmpi_abi comes from the rpath.
set -eu
wrapper=$1 src=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$wrapper" "$src" -o "$tmp/prog"
env -u LD_LIBRARY_PATH "$@" "$tmp/prog"
