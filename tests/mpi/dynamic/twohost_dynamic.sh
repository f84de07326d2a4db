#!/usr/bin/env bash
# Dynamic processes across the two simulated hosts (../shared/tools/twohost, as tests/twohost/).
#
#   twohost_dynamic.sh spawn hydra|hydra2|ompi TIMEOUT PROGRAM [ARGS...]
#       2 parents, one per host, under that launcher; PROGRAM spawns (dynamic_spawn.c): the
#       children land where the launcher puts them, and every parent talks to every child
#   twohost_dynamic.sh connect MPIEXEC TIMEOUT PROGRAM
#       two launches of Baton's mpiexec, the server (2 ranks) on hostA, the client (2 ranks) on
#       hostB, meeting through a port whose name goes through a file (dynamic_connect.c)
# Exit 77 (ctest: skipped) with a line saying why when namespaces or the launcher are missing.
set -u
mode=$1 launcher=$2 limit=$3
shift 3
prog=("$@")
. "$(dirname "$0")/../../twohost/common.sh"
case $mode:$launcher in
  spawn:hydra|spawn:hydra2) command -v mpiexec.hydra >/dev/null || { echo "SKIP: mpiexec.hydra not installed"; exit 77; } ;;
  spawn:ompi) command -v mpirun.openmpi >/dev/null || { echo "SKIP: Open MPI's mpirun not installed"; exit 77; } ;;
esac
twohost_up
trap '"$tools/down" >/dev/null 2>&1; rm -rf "${dir:-}"' EXIT
case $mode in
  spawn)
    case $launcher in
      hydra|hydra2)
        genv=()
        [ "$launcher" = hydra2 ] && genv+=(-genv PMI_VERSION 2)
        timeout -k 5 "$limit" "$tools/on" hostA mpiexec.hydra -hosts 10.99.0.1,10.99.0.2 -n 2 -ppn 1 \
          -launcher ssh -launcher-exec "$tools/hydra-exec" "${genv[@]}" "${prog[@]}"
        ;;
      ompi)
        # 4 slots per host: the parents take one each, the children go to the free ones.
        LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")/../../twohost" && pwd)/lsan-pmix.supp"
        export LSAN_OPTIONS
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        timeout -k 5 "$limit" "$tools/on" hostA mpirun.openmpi --mca plm_rsh_agent "$tools/hydra-exec" \
          --mca btl self,tcp --host 10.99.0.1:4,10.99.0.2:4 -n 2 --map-by node -x LSAN_OPTIONS "${prog[@]}"
        ;;
    esac
    ;;
  connect)
    dir=$(mktemp -d)
    chmod 755 "$dir"
    timeout -k 5 "$limit" "$tools/on" hostA "$launcher" -n 2 --timeout "$limit" "${prog[@]}" server "$dir/port" & s=$!
    timeout -k 5 "$limit" "$tools/on" hostB "$launcher" -n 2 --timeout "$limit" "${prog[@]}" client "$dir/port" & c=$!
    wait $s; rs=$?
    wait $c; rc=$?
    echo "server (hostA) exit $rs, client (hostB) exit $rc"
    [ $rs = 0 ] && [ $rc = 0 ]
    ;;
esac
