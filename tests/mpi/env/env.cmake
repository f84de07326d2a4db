# Environment tests (included by tests/mpi/CMakeLists.txt).
find_package(Threads REQUIRED)

# Initialized/Finalized before and after, Init_thread at each level (and plain MPI_Init),
# Query_thread, Is_thread_main, Wtime/Wtick, Get_processor_name, Get_version (must be 5.0),
# Get_library_version, COMM_WORLD/COMM_SELF
add_mpi_test(NAME env_basic_init SOURCES env_basic.c NP 1 2 4 TIMEOUT 30 LABELS env
             ARGS --level init --expect-version 5.0)
target_link_libraries(mpitest_env_basic_init PRIVATE Threads::Threads)
foreach(level single funneled serialized multiple)
  add_mpi_test(NAME env_basic_${level} PROGRAM env_basic_init NP 1 2 4 TIMEOUT 30 LABELS env
               ARGS --level ${level} --expect-version 5.0)
endforeach()

# MPI_THREAD_MULTIPLE: 4 threads per rank exchanging concurrently on distinct tags / communicators
add_mpi_test(NAME env_threads SOURCES env_threads.c NP 1 2 3 4 8 TIMEOUT 60 LABELS env threads)
target_link_libraries(mpitest_env_threads PRIVATE Threads::Threads)

# MPI_Abort(MPI_COMM_WORLD, 7) from the last rank ends the job with exit status 7, through the
# wrapper in errors/errors.cmake (script mode): status 7 exactly, reached the call, no hang
add_mpi_test(NAME env_abort SOURCES env_abort.c) # builds the program; tests below
foreach(np 1 2 4)
  add_test(NAME env_abort.np${np}
           COMMAND ${CMAKE_COMMAND}
                   "-DCMD=${CMAKE_BINARY_DIR}/bin/mpiexec|-n|${np}|--timeout|25|$<TARGET_FILE:mpitest_env_abort>"
                   -DEXPECT_RC=7
                   "-DEXPECT_OUTPUT=calling MPI_Abort"
                   -DFORBID_OUTPUT=NOT-REACHED
                   -DLIMIT=30
                   -P ${CMAKE_CURRENT_LIST_DIR}/../errors/errors.cmake)
  set_tests_properties(env_abort.np${np} PROPERTIES TIMEOUT 40 LABELS "mpi;env" PROCESSORS 1)
endforeach()
