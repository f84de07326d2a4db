#!/usr/bin/env bash
# Fault cases of dynamic processes (dynamic_fault.c): checks how and how fast the jobs end, and
# that nothing is left behind (processes carrying this run's tag; this run's shared-memory
# objects).
#
#   fault.sh MPIEXEC PROGRAM crash-child|parent-exits|peer-dies
set -u
mpiexec=$1 prog=$2 mode=$3
tag=baton-fault-$$-$RANDOM
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
shm_before=$(ls /dev/shm)
start=$(date +%s.%N)
fail() { echo "FAIL: $*"; exit 1; }
case $mode in
  crash-child|parent-exits)
    "$mpiexec" -n 2 --timeout 40 "$prog" "$mode" "$tag" > "$dir/out" 2>&1
    rc=$?
    ;;
  peer-dies)
    "$mpiexec" -n 2 --timeout 40 "$prog" server "$dir/port" > "$dir/out" 2>&1 & s=$!
    "$mpiexec" -n 2 --timeout 40 "$prog" client "$dir/port" > "$dir/out.client" 2>&1 & c=$!
    wait $s; rc=$?
    wait $c; rcc=$?
    cat "$dir/out.client"
    [ $rcc != 0 ] || fail "the client that killed itself exited 0"
    ;;
esac
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
cat "$dir/out"
echo "exit $rc after $elapsed s"
case $mode in
  parent-exits)
    [ $rc = 0 ] || fail "expected exit 0"
    grep -q "children done (2)" "$dir/out" || fail "the children did not finish after their parents left"
    ;;
  *)
    [ $rc != 0 ] || fail "expected a failure exit"
    [ $rc != 124 ] || fail "the job hung until mpiexec's timeout"
    [ "$(echo "$elapsed < 15" | bc)" = 1 ] || fail "took $elapsed s to end"
    ;;
esac
sleep 0.2
if pgrep -f "$tag" > /dev/null; then pgrep -af "$tag"; fail "processes of this run are left"; fi
for f in $(ls /dev/shm); do
  case "$shm_before" in *"$f"*) continue ;; esac
  case $f in
    baton.kvs_baton-*)
      pid=${f#baton.kvs_baton-}; pid=${pid%%-*}
      kill -0 "$pid" 2>/dev/null || fail "/dev/shm/$f is left behind"
      ;;
  esac
done
echo ok
