#!/bin/sh
# Builds Baton and runs the main example (a ring exchange) on 4 ranks.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
build/bin/mpiexec -n 4 build/examples/ring
