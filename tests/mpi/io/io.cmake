# File I/O (MPI-4.1 chapter 14): src/io/, src/abi/abi_file*.cpp, docs/io.md.
add_mpi_test(NAME io_basic SOURCES io_basic.c NP 1 2 4 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_views SOURCES io_views.c NP 1 2 3 4 8 TIMEOUT 120 LABELS io)
add_mpi_test(NAME io_shared SOURCES io_shared.c NP 1 2 4 8 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_nonblocking SOURCES io_nonblocking.c NP 1 2 4 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_datarep SOURCES io_datarep.c NP 1 2 4 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_atomic SOURCES io_atomic.c NP 2 4 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_errors SOURCES io_errors.c NP 1 2 4 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_async SOURCES io_async.c NP 2 4 TIMEOUT 90 LABELS io async ENV BATON_ASYNC_PROGRESS=1)
# The progress thread runs at SCHED_IDLE: it needs the cores these sleeping ranks leave, which a
# test running beside them takes away (as coll_async_idle).
set_tests_properties(io_async.np2 io_async.np4 PROPERTIES RUN_SERIAL TRUE)
# Without the thread nothing moves while the ranks sleep: the check must fail, with its message.
add_test(NAME io_async_nothread.np2
         COMMAND ${CMAKE_BINARY_DIR}/bin/mpiexec -n 2 --timeout 60 $<TARGET_FILE:mpitest_io_async>)
set_tests_properties(io_async_nothread.np2 PROPERTIES TIMEOUT 75 LABELS "mpi;np2;io" PROCESSORS 1
  ENVIRONMENT "BATON_ASYNC_PROGRESS=0;BATON_TEST_IDLE_MS=300" PASS_REGULAR_EXPRESSION "did not complete within")
# A rank killed right after MPI_File_sync: its data is in the file (io_kill.sh runs both phases).
add_mpi_test(NAME io_kill SOURCES io_kill.c NP TIMEOUT 60 LABELS io_kill)
foreach(np 2 4)
  add_test(NAME io_kill_synced.np${np}
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/io_kill.sh ${CMAKE_BINARY_DIR}/bin/mpiexec $<TARGET_FILE:mpitest_io_kill> ${np})
  set_tests_properties(io_kill_synced.np${np} PROPERTIES TIMEOUT 90 LABELS "mpi;io;np${np}" PROCESSORS 1)
endforeach()
