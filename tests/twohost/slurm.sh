#!/usr/bin/env bash
# Runs one MPI program under Slurm across the two simulated hosts (../shared/tools/twohost): a
# throw-away Slurm cluster of its own (munged with a fresh key, slurmctld on hostA, one slurmd per
# host, its own ports and files under a temporary directory), then srun -N 2 with the given plugin.
#
#   slurm.sh PLUGIN NP TIMEOUT [VAR=value...] -- PROGRAM [ARGS...]
#
# PLUGIN: pmi2 (srun --mpi=pmi2, the PMI-2 wire protocol on PMI_FD) or pmix (libpmix). Ranks in
# blocks (ceil(NP/2) on hostA). Exit 77 (ctest: skipped) with a line saying why when namespaces or
# Slurm (Debian slurmd, slurmctld, slurm-client, munge) are unavailable.
set -u
plugin=$1 np=$2 limit=$3
shift 3
. "$(dirname "$0")/common.sh"
twohost_args "$@"
for p in srun slurmd slurmctld munged; do
  command -v $p >/dev/null || [ -x /usr/sbin/$p ] ||
    { echo "SKIP: $p not installed (Debian slurmd slurmctld slurm-client munge)"; exit 77; }
done
PATH=$PATH:/usr/sbin
twohost_up
dir=$(mktemp -d /tmp/baton-slurm.XXXXXX)
chmod 711 "$dir"
cleanup() {
  # The daemons by their command line (a pid file may not be written yet), munged by its pid file.
  pkill -f -- "-f $dir/slurm.conf" 2>/dev/null
  for f in "$dir"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
  for _ in 1 2 3 4 5 6 7 8 9 10; do pgrep -f -- "-f $dir/slurm.conf" >/dev/null || break; sleep 0.1; done
  pkill -9 -f -- "-f $dir/slurm.conf" 2>/dev/null
  for f in "$dir"/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
  "$tools/down" >/dev/null 2>&1
  [ -n "${BATON_SLURM_KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
show_logs() { for f in "$dir"/*.log; do echo "== $f"; tail -n 15 "$f"; done; }

head -c 1024 /dev/urandom >"$dir/munge.key"
chmod 400 "$dir/munge.key"
munged --force --key-file "$dir/munge.key" --socket "$dir/munge.sock" --pid-file "$dir/munged.pid" \
  --log-file "$dir/munged.log" --seed-file "$dir/munge.seed" ||
  { echo "FAIL: munged did not start"; show_logs; exit 1; }
mkdir -p "$dir/state" "$dir/spool-hostA" "$dir/spool-hostB" "$dir/tmp" "$dir/tmp-hostA" "$dir/tmp-hostB"
cat >"$dir/slurm.conf" <<CONF
ClusterName=batontwohost
SlurmctldHost=hostA(10.99.0.1)
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool-%n
SlurmctldLogFile=$dir/ctld.log
SlurmdLogFile=$dir/slurmd-%n.log
SlurmctldPidFile=$dir/ctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmUser=root
ReturnToService=2
MpiDefault=none
TmpFS=$dir/tmp
NodeName=hostA NodeAddr=10.99.0.1 CPUs=2
NodeName=hostB NodeAddr=10.99.0.2 CPUs=2
PartitionName=two Nodes=hostA,hostB Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
"$tools/on" hostA slurmctld -f "$SLURM_CONF" || { echo "FAIL: slurmctld did not start"; show_logs; exit 1; }
# Each slurmd gets, in its host's own mount namespace: a private TmpFS (the PMIx plugin makes
# per-job directories there, named the same on both hosts) and, since ip netns exec mounts a fresh
# /sys without the cgroup tree, the minimal cgroup-v1 layout slurmd's cgroup plugin checks for.
for h in hostA hostB; do
  "$tools/on" $h sh -c 'mount --bind "$0" "$1" &&
      { mountpoint -q /sys/fs/cgroup || { mount -t tmpfs cgroup /sys/fs/cgroup && mkdir /sys/fs/cgroup/systemd &&
        mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd; }; } && shift && exec "$@"' \
    "$dir/tmp-$h" "$dir/tmp" slurmd -f "$SLURM_CONF" -N $h || { echo "FAIL: slurmd on $h did not start"; show_logs; exit 1; }
done
ready=
for _ in $(seq 1 100); do
  if [ "$("$tools/on" hostA sinfo -h -o %T -t idle 2>/dev/null | wc -l)" -ge 1 ] &&
     [ "$("$tools/on" hostA sinfo -h -N -o %T 2>/dev/null | grep -c idle)" = 2 ]; then ready=1; break; fi
  sleep 0.2
done
[ -n "$ready" ] || { echo "FAIL: the two slurmd never came up idle"; "$tools/on" hostA sinfo -N; show_logs; exit 1; }
perA=$(( (np + 1) / 2 ))
minutes=$(( (limit + 59) / 60 ))
envstr=ALL
for e in "${envs[@]}"; do envstr="$envstr,$e"; done
"$tools/on" hostA timeout -k 5 "$limit" srun --mpi="$plugin" -N 2 -n "$np" -m block -O \
  --ntasks-per-node="$perA" -t "$minutes" --export="$envstr" "${prog[@]}"
rc=$?
[ $rc = 0 ] || show_logs
exit $rc
