#!/bin/sh
# bind_distinct.sh MPIEXEC: with --bind-to core, 2 ranks get one CPU each, different ones when this
# process may use 2 or more CPUs. Prints "distinct ok" when so.
n=$("$1" -n 2 --bind-to core sh -c 'grep Cpus_allowed_list /proc/self/status' | sort -u | wc -l)
want=$(nproc)
[ "$want" -gt 2 ] && want=2
[ "$n" -eq "$want" ] && echo "distinct ok"
