# The multi-process suite through other launchers and the UCX transport (issue 7):
#
#   ucx.<test>.np<n>          our mpiexec on one host, BATON_TRANSPORT=ucx (every rank through
#                              UCX; label ucx; not where it repeats another, see below)
#   twohost.hydra.<test>.np<n> MPICH's mpiexec.hydra (PMI-1), ranks split across two simulated
#                              hosts (label twohost)
#   twohost.ompi.<test>.np<n>  Open MPI's mpirun (PMIx), same split, for the launcher set below
#                              (label twohost)
#   twohost.hydra2.<test>.np<n> mpiexec.hydra with the ranks speaking PMI-2 (PMI_VERSION=2), for
#                              the launcher set (label twohost)
#   twohost.slurm2.<test>.np<n> Slurm's srun --mpi=pmi2 on a throw-away two-node Slurm cluster
#   twohost.slurmx.<test>.np<n> (tests/twohost/slurm.sh: slurmctld + one slurmd per host) and
#                              srun --mpi=pmix, for the launcher set (label twohost)
#
# hydra runs every program across the two hosts. The other launchers differ from it only in what
# the process manager gives a rank: its wire-up (PMI-1, PMI-2 or PMIx put/get/fence), the names of
# its host's shared-memory objects (from the job's key-value space name), the job attributes
# (universe size, appnum) and process sets. After that the programs run the same code whatever
# started them, so the other launchers run the launcher set, the programs that between them touch
# each of those: point-to-point with every peer, the collectives' and the shared windows' segments,
# the shared file pointer, an intercommunicator, sessions and process sets, and the queued ring.
# (Every launcher ran every program until the serial chain of these runs reached 6 minutes of the
# suite's 25.)
#
# Every program of the suites below runs at its largest registered rank count up to 4 (at least
# 2; ranks in blocks, ceil(n/2) on the first host). The twohost runs skip (exit 77, with a line
# saying why) where namespaces can't be made (no root, no iproute2) or the launcher is missing.
# Their labels are only ucx / twohost (+ np<n>), so label filters of the other passes (the TSan
# pass runs unit|threads|async) don't pull them in.
# Left out, with the reason:
#   comm_create: checks that MPI_COMM_TYPE_SHARED gives the whole world (one host)
#   env_*, errors_*, attr_*: about our mpiexec and error reporting, not the transport
#   coll_persistent_alloc: counts malloc calls per start; UCX allocates inside its own progress
#   queue_cuda, queue_cuda_device: need a GPU (skip with exit 77 in their own registration)
# The queue tests (label queue) run here too: matched channels with a peer on another host carry
# their starts as engine messages over UCX. So do the intercommunicator tests labelled intercomm
# (groups split across the hosts: bridges and point-to-point over UCX) and the one-sided tests
# labelled rma (operations and their replies over UCX; a shared window across hosts is refused).
# The file I/O tests (label io) run in one folder both hosts see: the simulated hosts have a
# /dev/shm of their own but share the rest of the file system (tests/twohost/run.sh checks that
# the folder is the same one on both), so a shared file system is what their files live on.
set(BATON_TWOHOST_LABELS pt2pt coll coll_alg datatype async queue intercomm rma io)
set(BATON_TWOHOST_IO_DIR ${CMAKE_BINARY_DIR}/tests/io-shared)
file(MAKE_DIRECTORY ${BATON_TWOHOST_IO_DIR})
set(BATON_TWOHOST_EXCLUDE comm_create coll_persistent_alloc coll_persistent_alloc_noshm queue_cuda queue_cuda_device)
set(BATON_TWOHOST_LAUNCHER_SET pt2pt_nonblocking pt2pt_probe coll_basic coll_persistent_shm
    rma_shared_query io_shared intercomm_basic buffers_session example_queue_ring)
# Settings read only by the shared-memory transport and the shared-memory collectives and windows.
set(BATON_SHM_ONLY_ENV BATON_SHM_CMA BATON_SHM_COOP_MIN BATON_COLL_SHM BATON_RMA_DIRECT BATON_PCOLL_SINGLE_COPY)

function(baton_register_transport_tests)
  get_property(tests GLOBAL PROPERTY BATON_MPI_TESTS)
  list(REMOVE_DUPLICATES tests)
  find_program(BATON_BASH bash)
  foreach(t IN LISTS tests)
    if(t IN_LIST BATON_TWOHOST_EXCLUDE)
      continue()
    endif()
    get_property(spec GLOBAL PROPERTY BATON_MPI_TEST_${t})
    get_property(exe GLOBAL PROPERTY BATON_MPI_TEST_EXE_${t})
    # NP|LABELS|TIMEOUT|ENV|ARGS: lists inside use ';' already, so split by position.
    string(REGEX MATCH "^([^|]*)\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|(.*)$" _ "${spec}")
    set(nps "${CMAKE_MATCH_1}")
    set(labels "${CMAKE_MATCH_2}")
    set(timeout "${CMAKE_MATCH_3}")
    set(envs "${CMAKE_MATCH_4}")
    set(args "${CMAKE_MATCH_5}")
    set(wanted FALSE)
    foreach(l IN LISTS labels)
      if(l IN_LIST BATON_TWOHOST_LABELS)
        set(wanted TRUE)
      endif()
    endforeach()
    if(NOT wanted)
      continue()
    endif()
    set(np 0)
    foreach(n IN LISTS nps)
      if(n GREATER np AND n LESS_EQUAL 4)
        set(np ${n})
      endif()
    endforeach()
    if(np LESS 2)
      continue()
    endif()
    if(NOT timeout)
      set(timeout 60)
    endif()
    if("io" IN_LIST labels)
      list(APPEND envs "BATON_IO_TEST_DIR=${BATON_TWOHOST_IO_DIR}")
    endif()
    math(EXPR limit "${timeout} * 2")
    math(EXPR ctest_limit "${limit} + 30")
    # The ucx run is left out where it would repeat another one: settings that change only the
    # shared-memory paths (with BATON_TRANSPORT=ucx every rank is alone on its host), and under the
    # sanitizers a program's variants (PROGRAM: other algorithms, settings or arguments; their code
    # is checked in the shared-memory runs, the transport's by the program's own ucx run) unless
    # they add the progress thread. The two-host runs keep them all: there ranks share a host.
    set(shm_only FALSE)
    if(envs)
      set(shm_only TRUE)
      foreach(e IN LISTS envs)
        string(REGEX REPLACE "=.*" "" var "${e}")
        string(REGEX REPLACE "^[^=]*=" "" val "${e}")
        if(NOT var IN_LIST BATON_SHM_ONLY_ENV AND NOT (var MATCHES "_ALGORITHM$" AND val MATCHES "^(shm|single_copy)$"))
          set(shm_only FALSE)
        endif()
      endforeach()
    endif()
    set(ucx_run TRUE)
    if(shm_only OR (BATON_SANITIZE AND NOT exe STREQUAL "mpitest_${t}" AND NOT "BATON_ASYNC_PROGRESS=1" IN_LIST envs))
      set(ucx_run FALSE)
    endif()
    get_test_property(${t}.np${np} RUN_SERIAL serial)
    if(ucx_run)
      add_test(NAME ucx.${t}.np${np}
               COMMAND ${CMAKE_BINARY_DIR}/bin/mpiexec -n ${np} --timeout ${limit} $<TARGET_FILE:${exe}> ${args})
      set_tests_properties(ucx.${t}.np${np} PROPERTIES TIMEOUT ${ctest_limit} LABELS "ucx;np${np}"
                           ENVIRONMENT "BATON_TRANSPORT=ucx;${envs}" PROCESSORS 1)
      # A test that needs the machine to itself (RUN_SERIAL) needs it over UCX too.
      if(serial)
        set_tests_properties(ucx.${t}.np${np} PROPERTIES RUN_SERIAL TRUE)
      endif()
    endif()
    if(BATON_BASH)
      set(launchers hydra)
      if(t IN_LIST BATON_TWOHOST_LAUNCHER_SET)
        list(APPEND launchers ompi hydra2 slurm2 slurmx)
      endif()
      foreach(launcher IN LISTS launchers)
        if(launcher MATCHES "^slurm")
          string(REPLACE "slurm2" "pmi2" plugin "${launcher}")
          string(REPLACE "slurmx" "pmix" plugin "${plugin}")
          set(cmd ${PROJECT_SOURCE_DIR}/tests/twohost/slurm.sh ${plugin})
        else()
          set(cmd ${PROJECT_SOURCE_DIR}/tests/twohost/run.sh ${launcher})
        endif()
        add_test(NAME twohost.${launcher}.${t}.np${np}
                 COMMAND ${BATON_BASH} ${cmd} ${np} ${limit} ${envs} -- $<TARGET_FILE:${exe}> ${args})
        # One at a time (the two hosts are machine-wide), so together they are the longest chain
        # of the suite: a COST makes ctest start them first when it has no timings yet (a fresh
        # clone), instead of last (they are registered last), alone in one slot at the end.
        set_tests_properties(twohost.${launcher}.${t}.np${np} PROPERTIES TIMEOUT ${ctest_limit}
                             LABELS "twohost;${launcher}" SKIP_RETURN_CODE 77 RESOURCE_LOCK twohost COST 10)
        if(serial)
          set_tests_properties(twohost.${launcher}.${t}.np${np} PROPERTIES RUN_SERIAL TRUE)
        endif()
      endforeach()
    endif()
  endforeach()
endfunction()

get_property(baton_have_ucx GLOBAL PROPERTY BATON_HAVE_UCX)
if(baton_have_ucx)
  # After every *.cmake here has registered its tests.
  cmake_language(DEFER CALL baton_register_transport_tests)
endif()
