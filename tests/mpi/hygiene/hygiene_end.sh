#!/bin/sh
# hygiene_end.sh MPIEXEC PROGRAM NP STAGE HOW [DELAY]: runs PROGRAM (hygiene_job.c) at NP ranks,
# ends it abnormally at STAGE, and checks that /dev/shm holds nothing of that job afterwards: no
# name with its job id, and none in the names earlier versions used with one of its ranks' pids
# (baton.coll.<pid>.*, baton.pers.<pid>.*, baton-win-<pid>-*). Objects of other jobs, which run
# beside it on this machine, are never touched. STAGE start: nobody is late; the signal comes
# DELAY seconds after the first rank has started (somewhere in the start-up, at 32 ranks on 2
# cores).
#   HOW: kill9 (kill -9 of the late rank), sigint / sigterm (to mpiexec), timeout (mpiexec
#        --timeout), abort (MPI_Abort by the late rank), exit (the late rank exits with code 3)
set -u
mpiexec=$1 prog=$2 np=$3 stage=$4 how=$5 delay=${6:-0}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
end=wait
[ "$how" = abort ] && end=abort
[ "$how" = exit ] && end=exit
opts=
[ "$how" = timeout ] && opts="--timeout 3"
"$mpiexec" $opts -n "$np" "$prog" "$stage" "$end" > "$tmp/out" 2> "$tmp/err" &
launcher=$!
# Every rank prints its pid and the job id first.
i=0 jobid=
while [ -z "$jobid" ]; do
  i=$((i + 1))
  if [ $i -gt 3000 ]; then echo "FAIL: no rank started"; kill -9 $launcher; exit 1; fi
  jobid=$(awk '/^pid /{print $4; exit}' "$tmp/out" 2>/dev/null)
  [ -z "$jobid" ] && sleep 0.01
done
fail=0
case $how in
  kill9|sigint|sigterm)
    if [ "$stage" = start ]; then
      sleep "$delay"
    else
      # the late rank has stopped
      i=0
      while ! grep -q '^late ' "$tmp/out"; do
        i=$((i + 1))
        if [ $i -gt 3000 ]; then echo "FAIL: the job did not reach stage $stage"; kill -9 $launcher; exit 1; fi
        sleep 0.01
      done
      # the others are inside their call by now, or soon (nothing outside shows it: by design no
      # object exists while a rank is late): give them a moment to get there
      sleep 0.3
    fi
    case $how in
      kill9) kill -9 "$(awk -v r=$((np - 1)) '$1 == "pid" && $2 == r {print $3}' "$tmp/out")" ;;
      sigint) kill -INT $launcher ;;
      sigterm) kill -TERM $launcher ;;
    esac ;;
esac
wait $launcher
rc=$?
pids=$(awk '/^pid /{print $3}' "$tmp/out")
# Only this user's objects: hygiene_planted, which may run beside this test, plants names with
# guessed pids as another user (uid 65534), and those are neither this job's nor to be removed.
left=$(find /dev/shm -maxdepth 1 -mindepth 1 -user "$(id -u)" -printf '%f\n' | while read -r f; do
  case $f in *"$jobid"*) echo "$f"; continue ;; esac
  for p in $pids; do
    case $f in baton.coll.$p.*|baton.pers.$p.*|baton-win-$p-*) echo "$f" ;; esac
  done
done)
echo "job $jobid ($np ranks, stage $stage, end $how): mpiexec exit code $rc"
case $how in
  kill9) want=137 ;; sigint) want=130 ;; sigterm) want=143 ;; timeout) want=124 ;; abort) want=9 ;; exit) want=3 ;;
esac
[ "$rc" -eq "$want" ] || { echo "FAIL: exit code $rc, expected $want"; fail=1; }
if [ -n "$left" ]; then
  echo "FAIL: the job left in /dev/shm:"
  echo "$left" | sed 's/^/  /'
  # leave nothing behind even when failing: these are this job's own objects
  for f in $left; do rm -f "/dev/shm/$f"; done
  fail=1
fi
if [ $fail -ne 0 ]; then
  echo "--- stdout"; head -n 20 "$tmp/out"; echo "--- stderr"; head -n 20 "$tmp/err"
else
  echo PASS
fi
exit $fail
