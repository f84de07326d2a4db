# Hygiene: nothing left behind, nothing hijacked (issue 28). Shared-memory objects removed however
# a job ends, unpredictable names owned by the job, queue and RMA corner cases as the peers have
# them. docs/architecture.md, "Shared-memory objects", states the rules these check.

# A job that ends abnormally (kill -9 of a rank, SIGINT / SIGTERM to mpiexec, --timeout, MPI_Abort,
# a rank exiting early) while a rank is still starting up or has not joined the first collective
# on a communicator (or a shared window, or a persistent collective's init) leaves nothing of that
# job in /dev/shm. hygiene_end.sh looks only at the job's own objects (named after its job id).
add_executable(hygiene_job ${CMAKE_CURRENT_LIST_DIR}/hygiene_job.c)
target_link_libraries(hygiene_job PRIVATE mpi_abi)
set_target_properties(hygiene_job PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/mpi)
function(add_hygiene_end stage how)
  foreach(np IN LISTS ARGN)
    add_test(NAME hygiene.end.${stage}.${how}.np${np}
             COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/hygiene_end.sh ${CMAKE_BINARY_DIR}/bin/mpiexec
                     $<TARGET_FILE:hygiene_job> ${np} ${stage} ${how})
    set_tests_properties(hygiene.end.${stage}.${how}.np${np} PROPERTIES TIMEOUT 60
                         LABELS "mpi;hygiene;np${np}" PROCESSORS 1)
  endforeach()
endfunction()
add_hygiene_end(init kill9 2 4 32)
add_hygiene_end(init sigint 2 4 32)
add_hygiene_end(init sigterm 2 4)
add_hygiene_end(init timeout 2 4)
add_hygiene_end(init exit 2 4)
add_hygiene_end(coll kill9 2 4)
add_hygiene_end(coll sigint 2 4 32)
add_hygiene_end(coll abort 2 4 32)
add_hygiene_end(coll timeout 4)
add_hygiene_end(win abort 2 4)
add_hygiene_end(win sigterm 4)
add_hygiene_end(pers abort 2 4)
add_hygiene_end(pers kill9 4)
# Ctrl-C somewhere in a 32-rank start-up (MPI_Init, the first collective's region, a shared
# window): 0.1 to 0.8 s after the first rank started.
foreach(delay 0.1 0.2 0.4 0.8)
  add_test(NAME hygiene.end.start.sigint.np32.after${delay}s
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/hygiene_end.sh ${CMAKE_BINARY_DIR}/bin/mpiexec
                   $<TARGET_FILE:hygiene_job> 32 start sigint ${delay})
  set_tests_properties(hygiene.end.start.sigint.np32.after${delay}s PROPERTIES TIMEOUT 60
                       LABELS "mpi;hygiene;np32" PROCESSORS 1)
endforeach()

# Files planted as another user under every name the job's objects could be guessed to take
# change nothing: every object works, is this job's, and no planted file is mapped or changed.
# (Needs root to act as another user; otherwise it passes saying why it checked nothing.)
add_mpi_test(NAME hygiene_planted SOURCES hygiene_planted.c NP 1 2 4 TIMEOUT 60 LABELS hygiene)

# MPI_Queue_free refuses a queue with an enqueued start that has no enqueued wait (MPI_ERR_ARG),
# and the queue stays usable.
add_mpi_test(NAME hygiene_queue_free_unwaited SOURCES queue_free_unwaited.c NP 1 2 TIMEOUT 60 LABELS hygiene queue)
# MPI_Win_shared_query of an empty segment gives a NULL base; MPI_Compare_and_swap takes MPI_CHAR.
add_mpi_test(NAME hygiene_rma_shared_zero_cas_char SOURCES rma_shared_zero_cas_char.c NP 1 2 4 TIMEOUT 60
             LABELS hygiene rma)

# Garbage handles of every kind (random, non-canonical, misaligned, freed, stack, heap, small
# non-predefined values, another kind's handle) give the kind's error class instead of a crash.
add_mpi_test(NAME hygiene_handles SOURCES hygiene_handles.c NP 1 2 TIMEOUT 60 LABELS hygiene)

# The stall watchdog: with BATON_STALL_WARN=1, a deadlock makes mpiexec print what each rank waits
# on (operation, peer, tag, communicator) and which ranks are not in MPI; --timeout still ends it.
add_executable(hygiene_stall ${CMAKE_CURRENT_LIST_DIR}/hygiene_stall.c)
target_link_libraries(hygiene_stall PRIVATE mpi_abi)
set_target_properties(hygiene_stall PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/mpi)
set(hygiene_check sh ${PROJECT_SOURCE_DIR}/tools/mpiexec/test/check.sh)
add_test(NAME hygiene.stall.recv
         COMMAND ${hygiene_check} --rc 124
           --err [=[^mpiexec: no progress for [0-9]+ s \(BATON_STALL_WARN\); what the ranks wait on:$]=]
           --err [=[^mpiexec:   rank 0: receive from rank 1, tag 7, on MPI_COMM_WORLD]=]
           --err [=[^mpiexec:   rank 1: receive from rank 0, tag 8, on MPI_COMM_WORLD]=]
           --err [=[^mpiexec:   ranks 2, 3: no report \(not waiting inside MPI]=]
           --err [=[^mpiexec: job timed out after 6 s$]=]
           -- env BATON_STALL_WARN=1 ${CMAKE_BINARY_DIR}/bin/mpiexec --timeout 6 -n 4 $<TARGET_FILE:hygiene_stall> recv)
add_test(NAME hygiene.stall.coll
         COMMAND ${hygiene_check} --rc 124
           --err [=[^mpiexec:   rank 0: blocking shared-memory collective \(run [0-9]+\) on MPI_COMM_WORLD: waiting for rank 2 to arrive]=]
           --err [=[^mpiexec:   rank 2: no report]=]
           -- env BATON_STALL_WARN=1 ${CMAKE_BINARY_DIR}/bin/mpiexec --timeout 6 -n 3 $<TARGET_FILE:hygiene_stall> coll)
# No watchdog line before BATON_STALL_WARN seconds: a job shorter than that prints nothing.
add_test(NAME hygiene.stall.quiet
         COMMAND ${hygiene_check} --rc 124 --no-err [=[no progress]=] --err [=[timed out after 2 s]=]
           -- env BATON_STALL_WARN=30 ${CMAKE_BINARY_DIR}/bin/mpiexec --timeout 2 -n 2 $<TARGET_FILE:hygiene_stall> recv)
set_tests_properties(hygiene.stall.recv hygiene.stall.coll hygiene.stall.quiet PROPERTIES TIMEOUT 30
                     LABELS "mpi;hygiene" PROCESSORS 1)

# Collective argument mismatches: the rank whose buffer is smaller than what the others send gets
# MPI_ERR_TRUNCATE (blocking, nonblocking, persistent), nothing is written past its buffer and the
# communicator keeps working. Once with the default selection, then once per registry line of
# src/coll/algorithms.def (BATON_<COLL>_ALGORITHM), so every algorithm is checked with every rank
# running it.
# Persistent collectives whose counts disagree across a selection threshold are refused at init
# on every rank (MPI_ERR_TRUNCATE) instead of hanging at the first start.
add_mpi_test(NAME hygiene_persistent_diverge SOURCES hygiene_persistent_diverge.c NP 1 2 3 4 TIMEOUT 60
             LABELS hygiene coll)
add_executable(hygiene_truncate ${CMAKE_CURRENT_LIST_DIR}/hygiene_truncate.c)
target_link_libraries(hygiene_truncate PRIVATE mpi_abi)
target_include_directories(hygiene_truncate PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
set_target_properties(hygiene_truncate PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/mpi)
function(add_hygiene_truncate name coll env)
  foreach(np IN LISTS ARGN)
    add_test(NAME ${name}.np${np} COMMAND ${CMAKE_BINARY_DIR}/bin/mpiexec -n ${np} --timeout 60
                                          $<TARGET_FILE:hygiene_truncate> ${coll})
    set_tests_properties(${name}.np${np} PROPERTIES TIMEOUT 75 LABELS "mpi;hygiene;coll;np${np}" PROCESSORS 1
                         ENVIRONMENT "${env}")
  endforeach()
endfunction()
set(hygiene_trunc_colls bcast reduce allreduce gather gatherv scatter scatterv allgather allgatherv alltoall
    alltoallv reduce_scatter_block reduce_scatter scan exscan)
foreach(coll IN LISTS hygiene_trunc_colls)
  add_hygiene_truncate(hygiene_truncate_${coll} ${coll} "" 2 3 4)
endforeach()
file(STRINGS ${PROJECT_SOURCE_DIR}/src/coll/algorithms.def hygiene_alg_lines REGEX "^[ \t]*BATON_ALGORITHM[ \t]*\\(")
foreach(line IN LISTS hygiene_alg_lines)
  if(line MATCHES "BATON_ALGORITHM[ \t]*\\([ \t]*([a-z_]+)[ \t]*,[ \t]*([a-z0-9_]+)[ \t]*,")
    set(coll ${CMAKE_MATCH_1})
    set(alg ${CMAKE_MATCH_2})
    if(coll IN_LIST hygiene_trunc_colls)
      string(TOUPPER ${coll} coll_upper)
      add_hygiene_truncate(hygiene_truncate_${coll}_${alg} ${coll} BATON_${coll_upper}_ALGORITHM=${alg} 3 4)
    endif()
  endif()
endforeach()
# Collective calls whose ranks select algorithms that never meet (counts on both sides of a
# threshold, different collectives at one point) fail within seconds instead of hanging. One host
# only (the check reads the communicator's shared-memory region): not in the ucx/twohost runs.
add_mpi_test(NAME hygiene_diverge SOURCES hygiene_diverge.c NP 1 2 3 4 8 TIMEOUT 60 LABELS hygiene)
# The same without a region, where the messages show the mismatch (the program's comment says what
# it asks then): here with BATON_COLL_SHM=0, and (label coll) with every rank through UCX and
# across the two simulated hosts.
add_mpi_test(NAME hygiene_diverge_messages PROGRAM hygiene_diverge NP 2 3 4 TIMEOUT 60 LABELS hygiene coll
             ENV BATON_COLL_SHM=0 HYGIENE_DIVERGE_MESSAGES=1)
# The same where each case's call is its communicator's first collective: a nonblocking one waits
# for the region's setup, deferred, and is logged when the setup ends.
add_mpi_test(NAME hygiene_diverge_first PROGRAM hygiene_diverge NP 2 3 4 TIMEOUT 60 LABELS hygiene
             ENV HYGIENE_DIVERGE_FIRST=1)
