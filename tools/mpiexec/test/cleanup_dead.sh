#!/bin/sh
# cleanup_dead.sh MPIEXEC: `mpiexec --cleanup` removes the shared-memory objects of this user's
# jobs that are over and nothing else. It runs on a directory of its own (BATON_SHM_DIR), never on
# the /dev/shm that other jobs on this machine use, with files named as Baton names its objects:
#   - jobs that are over: creator and launcher pids gone (today's names, and earlier versions'
#     baton.coll/pers.<pid>.<n>, baton-win-<pid>-<n>, baton.kvs_<jobid>.<rank>): removed;
#   - a live job of Baton's mpiexec (launcher alive, creator gone), a live job of another
#     launcher (creator alive), names Baton does not make: kept;
#   - as root, a dead job's object that belongs to another user (uid 65534): kept.
set -u
mpiexec=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 1777 "$dir"  # as /dev/shm is: anyone may create, only the owner may remove
# a pid that is gone: a child that has exited (reaped)
sh -c 'exit 0' & dead=$!
wait $dead
while kill -0 $dead 2>/dev/null; do sh -c 'exit 0' & dead=$!; wait $dead; done
live=$$
r32=0123456789abcdef0123456789abcdef
gone="baton.baton-$dead-00000000deadbeef.host.$dead.$r32 baton.xkvs_7_0.coll.$dead.$r32 baton.coll.$dead.3 baton.pers.$dead.0 baton-win-$dead-5 baton.kvs_baton-$dead-0123abcd.0"
kept="baton.baton-$live-00000000deadbeef.win.$dead.$r32 baton.xslurm_5.coll.$live.$r32 baton.something.else notbaton.$dead"
for f in $gone $kept; do printf x > "$dir/$f"; done
other=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  other="baton.baton-$dead-00000000deadbeef.coll.$dead.$r32"
  setpriv --reuid 65534 --regid 65534 --clear-groups sh -c "printf x > '$dir/$other'" || { echo "FAIL: cannot create a file as uid 65534"; exit 1; }
  chown 65534:65534 "$dir/$other"
else
  echo "(not root or no setpriv: the other user's file is not tried)"
fi
out=$(BATON_SHM_DIR="$dir" "$mpiexec" --cleanup)
rc=$?
echo "$out"
fail=0
[ $rc -eq 0 ] || { echo "FAIL: exit code $rc"; fail=1; }
for f in $gone; do [ -e "$dir/$f" ] && { echo "FAIL: $f of a job that is over was kept"; fail=1; }; done
for f in $kept $other; do [ -e "$dir/$f" ] || { echo "FAIL: $f was removed"; fail=1; }; done
echo "$out" | grep -q "removed 6 objects" || { echo "FAIL: the summary does not say 6 objects"; fail=1; }
[ $fail -eq 0 ] && echo PASS
exit $fail
