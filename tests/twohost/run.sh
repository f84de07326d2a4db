#!/usr/bin/env bash
# Runs one MPI program with its ranks split across two simulated hosts (../shared/tools/twohost:
# network, IPC, UTS and mount namespaces joined by a veth pair), launched by an existing launcher.
#
#   run.sh LAUNCHER NP TIMEOUT [VAR=value...] -- PROGRAM [ARGS...]
#
# LAUNCHER: hydra (MPICH's mpiexec.hydra, PMI-1 on PMI_FD, ranks reached through a launcher-exec),
#           hydra2 (the same, the ranks speaking PMI-2: -genv PMI_VERSION 2)
#           or ompi (Open MPI's mpirun, PMIx, its ssh agent replaced by the same launcher-exec).
# Ranks go round the two hosts in blocks (ceil(NP/2) on hostA). Exit 77 (ctest: skipped) with a
# line saying why when namespaces or the launcher are unavailable. Runs hold a lock: the two hosts
# are machine-wide, so one twohost run at a time.
set -u
launcher=$1 np=$2 limit=$3
shift 3
. "$(dirname "$0")/common.sh"
twohost_args "$@"
case $launcher in
  hydra|hydra2) command -v mpiexec.hydra >/dev/null || { echo "SKIP: mpiexec.hydra (Debian mpich) not installed"; exit 77; } ;;
  ompi) command -v mpirun >/dev/null && mpirun --version 2>/dev/null | grep -q "Open MPI" ||
          { echo "SKIP: Open MPI's mpirun not installed"; exit 77; } ;;
  *) echo "run.sh: unknown launcher $launcher" >&2; exit 2 ;;
esac
twohost_up
trap '"$tools/down" >/dev/null 2>&1' EXIT
# A folder the file I/O tests share (BATON_IO_TEST_DIR): both hosts must see the same one, as on a
# shared file system. The hosts' mount namespaces replace /dev/shm only; check rather than assume.
for e in "${envs[@]}"; do
  case $e in
    BATON_IO_TEST_DIR=*)
      dir=${e#*=}
      mark=".twohost-check.$$"
      "$tools/on" hostA /bin/sh -c "mkdir -p '$dir' && echo hostA > '$dir/$mark'" &&
        seen=$("$tools/on" hostB cat "$dir/$mark" 2>/dev/null)
      rm -f "$dir/$mark"
      [ "${seen:-}" = hostA ] || { echo "run.sh: hostB does not see hostA's $dir: no shared folder"; exit 1; }
      ;;
  esac
done
ppn=$(( (np + 1) / 2 ))
case $launcher in
  hydra|hydra2)
    genv=()
    [ "$launcher" = hydra2 ] && genv+=(-genv PMI_VERSION 2)
    for e in "${envs[@]}"; do genv+=(-genv "${e%%=*}" "${e#*=}"); done
    timeout -k 5 "$limit" "$tools/on" hostA mpiexec.hydra -hosts 10.99.0.1,10.99.0.2 -n "$np" -ppn "$ppn" \
      -launcher ssh -launcher-exec "$tools/hydra-exec" "${genv[@]}" "${prog[@]}"
    ;;
  ompi)
    xenv=()
    for e in "${envs[@]}"; do xenv+=(-x "$e"); done
    # Sanitizer builds: libpmix's own leftovers are not ours (lsan-pmix.supp).
    LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")" && pwd)/lsan-pmix.supp"
    export LSAN_OPTIONS
    xenv+=(-x LSAN_OPTIONS)
    # Open MPI refuses root without both variables; its daemons reach hostB through the same
    # launcher-exec Hydra uses (an ssh stand-in) and talk TCP over the veth link.
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout -k 5 "$limit" "$tools/on" hostA mpirun --mca plm_rsh_agent "$tools/hydra-exec" \
      --mca btl self,tcp --host "10.99.0.1:$ppn,10.99.0.2:$ppn" -n "$np" --map-by slot "${xenv[@]}" "${prog[@]}"
    ;;
esac
