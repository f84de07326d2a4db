#!/bin/sh
# Builds Baton and runs the main examples on 4 ranks: a ring exchange, then the same ring through
# a queue (Example 13.1 of the draft chapter on queued communication).
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
build/bin/mpiexec -n 4 build/examples/ring
build/bin/mpiexec -n 4 build/examples/queue_ring
