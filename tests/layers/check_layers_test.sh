#!/bin/sh
# Tests scripts/check_layers.sh on small trees made here: it passes a clean tree and the allowed
# sideways includes, and fails (naming the file and the rule) on an upward include, a forbidden
# sideways one, <mpi.h> outside src/abi, an unknown layer folder and a stale allowed exception.
set -u
checker=${1:?usage: check_layers_test.sh path/to/check_layers.sh}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_layers_test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0

# tree NAME: a fresh tree in $tmp/NAME with one file per layer, all includes downward or allowed.
tree() {
  t=$tmp/$1
  mkdir -p "$t/src/core" "$t/src/transport/shm" "$t/src/p2p" "$t/src/coll/algorithms" "$t/src/queue" \
    "$t/src/rma" "$t/src/io" "$t/src/comm" "$t/src/abi" "$t/scripts"
  printf '#include <vector>\n#include "core/error.hpp"\n' > "$t/src/core/comm.cpp"
  printf '#include "core/comm.hpp"\n#include "transport/shm/shm.hpp"\n' > "$t/src/transport/shm/shm.cpp"
  printf '#include "transport/shm/shm.hpp"\n#include "p2p/p2p.hpp"\n' > "$t/src/p2p/engine.cpp"
  printf '#include "p2p/p2p.hpp"\n#include "helpers.hpp"\n' > "$t/src/coll/algorithms/bcast.cpp"
  printf '#include "coll/coll.hpp"\n' > "$t/src/queue/queue.cpp"
  printf '#include "coll/among.hpp"\n' > "$t/src/rma/win.cpp"
  printf '#include "coll/schedule.hpp"\n' > "$t/src/io/file.cpp"
  printf '#include "rma/win.hpp"\n#include "coll/coll.hpp"\n' > "$t/src/comm/comm.cpp"
  printf '#include <mpi.h>\n#include "comm/comm.hpp"\n#include "queue/queue.hpp"\n' > "$t/src/abi/abi_comm.cpp"
  : > "$t/scripts/layers_allowed.txt"
}

# expect NAME STATUS [TEXT]: the checker on tree NAME exits with STATUS and prints TEXT.
expect() {
  out=$(sh "$checker" "$tmp/$1" 2>&1)
  rc=$?
  if [ "$rc" != "$2" ]; then
    echo "FAIL $1: exit status $rc, expected $2; output:"
    echo "$out"
    failures=$((failures + 1))
  elif [ $# -ge 3 ] && ! printf '%s\n' "$out" | grep -qF -- "$3"; then
    echo "FAIL $1: output lacks \"$3\"; output:"
    echo "$out"
    failures=$((failures + 1))
  else
    echo "ok   $1"
  fi
}

tree clean
expect clean 0

tree upward
printf '#include "p2p/p2p.hpp"\n' >> "$tmp/upward/src/core/comm.cpp"
expect upward 1 'src/core/comm.cpp:3: includes "p2p/p2p.hpp": core may not include p2p (a layer above it)'

tree upward_spaced  # the preprocessor allows blanks around '#'
printf '  #  include "comm/comm.hpp"\n' >> "$tmp/upward_spaced/src/coll/algorithms/bcast.cpp"
expect upward_spaced 1 'src/coll/algorithms/bcast.cpp:3: includes "comm/comm.hpp": coll may not include comm'

tree abi_from_comm
printf '#include "abi/abi.hpp"\n' > "$tmp/abi_from_comm/src/comm/topo.hpp"
expect abi_from_comm 1 'src/comm/topo.hpp:1: includes "abi/abi.hpp": comm may not include abi'

tree sideways
printf '#include "queue/queue.hpp"\n' >> "$tmp/sideways/src/coll/coll.hpp"
expect sideways 1 'coll may not include queue (same level'

tree rma_queue
printf '#include "queue/queue.hpp"\n' >> "$tmp/rma_queue/src/rma/win.cpp"
expect rma_queue 1 'rma may not include queue (same level'

tree mpi_h
printf '#include <mpi.h>\n' >> "$tmp/mpi_h/src/p2p/engine.cpp"
expect mpi_h 1 'src/p2p/engine.cpp:3: includes <mpi.h>: only src/abi/'

tree unknown
mkdir -p "$tmp/unknown/src/fortran"
printf '#include "core/comm.hpp"\n' > "$tmp/unknown/src/fortran/bind.cpp"
expect unknown 1 'src/fortran is not a layer this check knows'

tree allowed
printf '#include "p2p/engine_state.hpp"\n' >> "$tmp/allowed/src/transport/shm/shm.cpp"
printf '# known\nsrc/transport/shm/shm.cpp p2p/engine_state.hpp   # removed by the seam\n' \
  > "$tmp/allowed/scripts/layers_allowed.txt"
expect allowed 0

tree stale
printf 'src/transport/shm/shm.cpp p2p/engine_state.hpp   # fixed since\n' > "$tmp/stale/scripts/layers_allowed.txt"
expect stale 1 'src/transport/shm/shm.cpp p2p/engine_state.hpp: listed as an allowed exception, but no longer occurs'

tree several  # every violation is reported, not only the first
printf '#include "coll/coll.hpp"\n' >> "$tmp/several/src/core/comm.cpp"
printf '#include "comm/comm.hpp"\n' >> "$tmp/several/src/p2p/engine.cpp"
out=$(sh "$checker" "$tmp/several" 2>&1)
if [ "$(printf '%s\n' "$out" | grep -c 'may not include')" = 2 ]; then echo "ok   several"; else
  echo "FAIL several: expected two violations; output:"; echo "$out"; failures=$((failures + 1)); fi

if [ "$failures" != 0 ]; then
  echo "$failures check(s) of check_layers.sh failed"
  exit 1
fi
echo "check_layers.sh: all checks passed"
