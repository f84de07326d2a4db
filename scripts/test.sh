#!/bin/sh
# Builds Baton and runs the whole test suite: the optimized build (everything), then the ASan+UBSan
# build (everything but the 8- and 5-rank runs, which oversubscribe 2 cores four- and 2.5-fold and
# add time, not coverage: every program keeps its 1-4 rank runs, 3 for the counts that are not a
# power of two; and the two-host runs, which repeat the same programs under other launchers: their
# transport, UCX, is covered by the forced-UCX runs), then a TSan build for everything with threads
# (the unit tests, MPI_THREAD_MULTIPLE and the progress thread; it builds only those tests'
# executables, target baton_threaded_tests). All three build with warnings as errors
# (BATON_WERROR). BATON_TEST_SANITIZERS=0 skips the sanitizer passes.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh
# UCX, PMIx, the peers' launchers and Slurm for the transport and two-host tests: wanted, not
# required (without them those tests are not built or skip, each with a line saying why).
sh scripts/deps.sh multihost || echo "deps: the multihost packages could not be installed: UCX and two-host tests will not run"
jobs=$(nproc 2>/dev/null || echo 2)

run_suite() {
  dir=$1; shift
  target=$1; shift
  filter=$1; shift
  cmake -S . -B "$dir" -G Ninja -DBATON_WERROR=ON "$@" >/dev/null
  t0=$(date +%s)
  cmake --build "$dir" --target "$target"
  t1=$(date +%s)
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 300 $filter)
  echo "== $dir: build $((t1 - t0)) s, tests $(($(date +%s) - t1)) s =="
}

echo "== optimized build =="
run_suite build all "" -DCMAKE_BUILD_TYPE=RelWithDebInfo
if [ "${BATON_TEST_SANITIZERS:-1}" != 0 ]; then
  echo "== ASan+UBSan build =="
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite build-asan all "-LE np8|np5|twohost" -DCMAKE_BUILD_TYPE=Debug -DBATON_SANITIZE=address
  echo "== TSan build (threads) =="
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    run_suite build-tsan baton_threaded_tests "-L unit|threads|async" -DCMAKE_BUILD_TYPE=Debug -DBATON_SANITIZE=thread
fi
