# Host-aware (two-level) collectives (src/coll/algorithms/two_level.hpp; included by
# tests/mpi/CMakeLists.txt). hier_coll.c checks barrier, bcast, reduce, allreduce, allgather and
# alltoall in every form. Host layouts are faked on one machine with BATON_COLL_HOSTS (labels per
# world rank, repeated: the collectives alone see these hosts, the transports the real ones), and
# real ones come from the two simulated hosts (twohost_layout.sh) and from BATON_TRANSPORT=ucx
# (every rank a host of its own). The matrix of coll_algorithms.cmake runs the two_level lines of
# barrier, bcast, reduce and allreduce on one host (one leader) as well.
# Labelled hier (not coll), so twohost.cmake's copies across launchers leave them out: the
# layouts across the simulated hosts are registered here.
set(_hier_force BATON_BARRIER_ALGORITHM=two_level BATON_BCAST_ALGORITHM=two_level
    BATON_REDUCE_ALGORITHM=two_level BATON_ALLREDUCE_ALGORITHM=two_level
    BATON_ALLGATHER_ALGORITHM=two_level BATON_ALLTOALL_ALGORITHM=two_level)
# Chosen automatically (2 hosts x 2 ranks), then forced on every layout.
add_mpi_test(NAME hier_coll_auto SOURCES hier_coll.c NP 4 TIMEOUT 240 LABELS hier ENV BATON_COLL_HOSTS=0,0,1,1)
add_mpi_test(NAME hier_coll_blocks SOURCES hier_coll.c NP 4 TIMEOUT 240 LABELS hier
             ENV BATON_COLL_HOSTS=0,0,1,1 ${_hier_force})
add_mpi_test(NAME hier_coll_blocks4 SOURCES hier_coll.c NP 8 TIMEOUT 300 LABELS hier
             ENV BATON_COLL_HOSTS=0,0,0,0,1,1,1,1 ${_hier_force})
add_mpi_test(NAME hier_coll_interleaved SOURCES hier_coll.c NP 3 4 5 TIMEOUT 240 LABELS hier
             ENV BATON_COLL_HOSTS=0,1 ${_hier_force})
add_mpi_test(NAME hier_coll_three_one SOURCES hier_coll.c NP 4 TIMEOUT 240 LABELS hier
             ENV BATON_COLL_HOSTS=0,0,0,1 ${_hier_force})
add_mpi_test(NAME hier_coll_three_hosts SOURCES hier_coll.c NP 6 8 TIMEOUT 300 LABELS hier
             ENV BATON_COLL_HOSTS=0,1,1,2,2,2 ${_hier_force})
add_mpi_test(NAME hier_coll_one_host SOURCES hier_coll.c NP 1 2 3 TIMEOUT 240 LABELS hier ENV ${_hier_force})
# Small pipeline segments: many segments per message, through every stage.
add_mpi_test(NAME hier_coll_segments SOURCES hier_coll.c NP 4 TIMEOUT 240 LABELS hier
             ENV BATON_COLL_HOSTS=0,1,1,0 BATON_COLL_HIER_SEGMENT=4096 ${_hier_force})
add_mpi_test(NAME hier_coll_async SOURCES hier_coll.c NP 4 TIMEOUT 240 LABELS hier async
             ENV BATON_ASYNC_PROGRESS=1 BATON_COLL_HOSTS=0,0,1,1 ${_hier_force})

get_property(_hier_ucx GLOBAL PROPERTY BATON_HAVE_UCX)
if(_hier_ucx)
  # Every rank a host of its own: the leaders are everyone.
  add_test(NAME hier_coll_ucx.np4
           COMMAND ${CMAKE_BINARY_DIR}/bin/mpiexec -n 4 --timeout 300 $<TARGET_FILE:mpitest_hier_coll_blocks>)
  set_tests_properties(hier_coll_ucx.np4 PROPERTIES TIMEOUT 315 LABELS "mpi;np4;hier;ucx" PROCESSORS 1
                       ENVIRONMENT "BATON_TRANSPORT=ucx;${_hier_force}")
  # The two simulated hosts: 2+2 and 4+4 chosen automatically, 3+1 and ranks alternating between
  # the hosts (forced, and automatically).
  find_program(BATON_BASH bash)
  if(BATON_BASH)
    foreach(spec "2x2:4:auto" "4x4:8:auto" "3+1:4:auto" "alternate:4:auto" "alternate:4:forced")
      string(REPLACE ":" ";" parts "${spec}")
      list(GET parts 0 layout)
      list(GET parts 1 np)
      list(GET parts 2 how)
      set(envs "")
      if(how STREQUAL "forced")
        set(envs ${_hier_force})
      endif()
      string(REPLACE "+" "p" name "${layout}")
      add_test(NAME twohost.hier_coll.${name}.${how}.np${np}
               COMMAND ${BATON_BASH} ${CMAKE_CURRENT_LIST_DIR}/twohost_layout.sh ${layout} ${np} 600 ${envs} --
                       $<TARGET_FILE:mpitest_hier_coll_auto>)
      set_tests_properties(twohost.hier_coll.${name}.${how}.np${np} PROPERTIES TIMEOUT 630
                           LABELS "twohost;hier" SKIP_RETURN_CODE 77 RESOURCE_LOCK twohost)
    endforeach()
  endif()
endif()

# Where the progress thread runs (hier_progress.c): it follows its application thread's core even
# while it cannot run itself (2 ranks on 2 cores: no spare core), and BATON_PROGRESS_CORE gives it
# a core of its own (auto: one rank on 2 cores leaves one; a list: core per rank of the host).
add_mpi_test(NAME hier_progress_follow SOURCES hier_progress.c NP 2 TIMEOUT 120 LABELS hier threads
             ARGS follow ENV BATON_ASYNC_PROGRESS=1)
add_mpi_test(NAME hier_progress_auto SOURCES hier_progress.c NP 1 2 TIMEOUT 120 LABELS hier threads
             ARGS dedicated ENV BATON_ASYNC_PROGRESS=1 BATON_PROGRESS_CORE=auto)
add_mpi_test(NAME hier_progress_list SOURCES hier_progress.c NP 2 TIMEOUT 120 LABELS hier threads
             ARGS dedicated ENV BATON_ASYNC_PROGRESS=1 BATON_PROGRESS_CORE=1,0)
# A malformed value and a core the process may not use stop MPI_Init with a message naming them.
foreach(bad "zz" "1000")
  add_test(NAME hier_progress_bad_${bad}.np1
           COMMAND ${CMAKE_BINARY_DIR}/bin/mpiexec -n 1 --timeout 30 $<TARGET_FILE:mpitest_hier_progress_follow>)
  set_tests_properties(hier_progress_bad_${bad}.np1 PROPERTIES TIMEOUT 45 LABELS "mpi;np1;hier" PROCESSORS 1
                       ENVIRONMENT "BATON_ASYNC_PROGRESS=1;BATON_PROGRESS_CORE=${bad}"
                       PASS_REGULAR_EXPRESSION "BATON_PROGRESS_CORE=${bad}: ")
endforeach()
