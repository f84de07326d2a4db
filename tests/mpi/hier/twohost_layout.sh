#!/usr/bin/env bash
# Runs one MPI program across the two simulated hosts (../shared/tools/twohost) with a given
# placement of ranks, launched by MPICH's mpiexec.hydra (PMI-1):
#
#   twohost_layout.sh LAYOUT NP TIMEOUT [VAR=value...] -- PROGRAM [ARGS...]
#
# LAYOUT: AxB   A ranks on hostA, then B on hostB (ranks in blocks; A+B = NP)
#         A+B   the same (written as an uneven split, e.g. 3+1)
#         alternate  ranks alternate between the hosts (0 on hostA, 1 on hostB, 2 on hostA, ...)
# Exit 77 (ctest: skipped) with a line saying why where the hosts or Hydra are unavailable.
set -u
layout=$1 np=$2 limit=$3
shift 3
. "$(dirname "$0")/../../twohost/common.sh"
twohost_args "$@"
command -v mpiexec.hydra >/dev/null || { echo "SKIP: mpiexec.hydra (Debian mpich) not installed"; exit 77; }
case $layout in
  alternate) place=(-hosts 10.99.0.1,10.99.0.2 -ppn 1) ;;
  *x*|*+*)
    a=${layout%[x+]*} b=${layout#*[x+]}
    [ $((a + b)) = "$np" ] || { echo "twohost_layout.sh: layout $layout is not $np ranks" >&2; exit 2; }
    place=(-hosts "10.99.0.1:$a,10.99.0.2:$b") ;;
  *) echo "twohost_layout.sh: unknown layout $layout" >&2; exit 2 ;;
esac
twohost_up
trap '"$tools/down" >/dev/null 2>&1' EXIT
genv=()
for e in "${envs[@]}"; do genv+=(-genv "${e%%=*}" "${e#*=}"); done
timeout -k 5 "$limit" "$tools/on" hostA mpiexec.hydra "${place[@]}" -n "$np" \
  -launcher ssh -launcher-exec "$tools/hydra-exec" "${genv[@]}" "${prog[@]}"
