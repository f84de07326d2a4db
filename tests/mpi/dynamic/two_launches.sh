#!/usr/bin/env bash
# Runs two independent launches that meet through a port (dynamic_connect.c, or the fault
# programs), and checks both exit codes.
#
#   two_launches.sh MPIEXEC PROGRAM NP_SERVER NP_CLIENT MODE [NAMESERVER]
#
# MODE: file (the port name goes through a file), names (through baton-nameserver, whose path is
# the last argument: it is started here and BATON_NAMESERVER points both jobs at it).
set -u
mpiexec=$1 prog=$2 nps=$3 npc=$4 mode=$5
dir=$(mktemp -d)
trap 'rm -rf "$dir"; [ -n "${ns_pid:-}" ] && kill "$ns_pid" 2>/dev/null' EXIT
where=$dir/port
if [ "$mode" = names ]; then
  "$6" --host 127.0.0.1 --address-file "$dir/ns" > /dev/null &
  ns_pid=$!
  for _ in $(seq 500); do [ -s "$dir/ns" ] && break; sleep 0.01; done
  BATON_NAMESERVER=$(cat "$dir/ns")
  export BATON_NAMESERVER
  where=-
fi
"$mpiexec" -n "$nps" --timeout 40 "$prog" server "$where" & s=$!
"$mpiexec" -n "$npc" --timeout 40 "$prog" client "$where" & c=$!
wait $s; rs=$?
wait $c; rc=$?
echo "server exit $rs, client exit $rc"
[ $rs = 0 ] && [ $rc = 0 ]
