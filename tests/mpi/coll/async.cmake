# Nonblocking collectives driven by the progress thread alone while every rank sleeps outside MPI
# (included by tests/mpi/CMakeLists.txt).
add_mpi_test(NAME coll_async_idle SOURCES coll_async_idle.c NP 2 3 4 TIMEOUT 120 LABELS coll async
             ENV BATON_ASYNC_PROGRESS=1)
# The thread runs at SCHED_IDLE: it gets a core only while nothing else wants one, which is what
# this test's sleeping ranks provide, and what another test running beside it takes away (under
# TSan beside coll_async_quiet.np3, a 1 MiB Iallreduce at 4 ranks made no progress for 5 s).
set_tests_properties(coll_async_idle.np2 coll_async_idle.np3 coll_async_idle.np4 PROPERTIES RUN_SERIAL TRUE)
# Without the thread nothing moves while the ranks sleep: the check must fail, with its message.
# Registered directly (not through add_mpi_test), so the runs across launchers and hosts, which
# expect every test to pass, leave it out.
add_test(NAME coll_async_idle_nothread.np2
         COMMAND ${CMAKE_BINARY_DIR}/bin/mpiexec -n 2 --timeout 60 $<TARGET_FILE:mpitest_coll_async_idle>)
set_tests_properties(coll_async_idle_nothread.np2 PROPERTIES
  TIMEOUT 75 LABELS "mpi;np2;coll;async" PROCESSORS 1
  ENVIRONMENT "BATON_ASYNC_PROGRESS=0;BATON_TEST_IDLE_MS=200"
  PASS_REGULAR_EXPRESSION "did not complete within")
# The progress thread sleeps while the application drives MPI itself with small collectives
# (5,000 rounds: a thread woken at every wait shows thousands of switches where a hundred or so
# are allowed; 20,000 rounds took 16-20 s of the suite through UCX and across the two hosts).
add_mpi_test(NAME coll_async_quiet SOURCES coll_async_quiet.c NP 2 3 4 TIMEOUT 120 LABELS coll async threads
             ENV BATON_ASYNC_PROGRESS=1)
# The progress thread's scheduling: SCHED_IDLE, and one core when the host has no spare one
# (np 1 leaves a spare core on a 2-core machine, np 2 and 4 do not).
add_mpi_test(NAME coll_async_policy SOURCES coll_async_policy.c NP 1 2 4 TIMEOUT 120 LABELS coll async threads
             ENV BATON_ASYNC_PROGRESS=1)
