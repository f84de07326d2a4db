#!/bin/sh
# signal_launcher.sh MPIEXEC PROBE SIGNAL CODE: signals a running mpiexec and checks that it
# exits with CODE (128+signal) within 2 s and that none of its ranks survive it.
set -u
mpiexec=$1 probe=$2 sig=$3 want=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
np=4
"$mpiexec" -n $np "$probe" ignore-term "pidfile:$tmp/pids" init sleep:60 > "$tmp/out" 2>&1 &
launcher=$!
i=0
while [ "$(cat "$tmp/pids" 2>/dev/null | wc -l)" -lt $np ]; do
  i=$((i + 1))
  if [ $i -gt 500 ]; then echo "FAIL: ranks did not start"; kill -9 $launcher; exit 1; fi
  sleep 0.01
done
start=$(date +%s%N)
kill -s "$sig" $launcher
wait $launcher
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$tmp/out"
echo "mpiexec exit code $rc after $ms ms"
fail=0
[ $rc -eq $want ] || { echo "FAIL: expected exit code $want"; fail=1; }
[ $ms -le 2000 ] || { echo "FAIL: took more than 2 s"; fail=1; }
for pid in $(cat "$tmp/pids"); do
  if kill -0 "$pid" 2>/dev/null; then echo "FAIL: rank pid $pid survived"; kill -9 "$pid"; fail=1; fi
done
[ $fail -eq 0 ] && echo PASS
exit $fail
