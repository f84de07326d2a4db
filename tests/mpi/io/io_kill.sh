#!/bin/sh
# io_kill.sh MPIEXEC PROGRAM NP: the write phase must end with the job killed (a rank died), then
# the check phase must find every rank's synced data. The file lives in a directory of its own.
mpiexec=$1 prog=$2 np=$3
dir=$(mktemp -d "${BATON_IO_TEST_DIR:-${TMPDIR:-/tmp}}/baton-io-kill-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
if "$mpiexec" -n "$np" --timeout 60 "$prog" write "$dir/data" 2>"$dir/err"; then
  echo "the write phase should have ended with a killed rank"; cat "$dir/err"; exit 1
fi
"$mpiexec" -n 1 --timeout 60 "$prog" check "$dir/data" "$np"
