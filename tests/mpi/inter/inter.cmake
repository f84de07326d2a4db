# Intercommunicators (MPI-4.1 7.6): construction, queries, point-to-point, dup/idup/split/create,
# merge, create_from_groups (intercomm_basic); error cases with MPI_ERRORS_RETURN
# (intercomm_errors); many intercommunicators at once, an intercommunicator as peer_comm and
# intercommunicators of merged ones (intercomm_nested).
add_mpi_test(NAME intercomm_basic SOURCES intercomm_basic.c NP 2 3 4 5 8 TIMEOUT 60 LABELS comm intercomm)
add_mpi_test(NAME intercomm_errors SOURCES intercomm_errors.c NP 2 3 4 5 8 TIMEOUT 60 LABELS comm)
add_mpi_test(NAME intercomm_nested SOURCES intercomm_nested.c NP 2 3 4 5 8 TIMEOUT 60 LABELS comm intercomm)
# MPI_THREAD_MULTIPLE: 4 threads per rank build, use, dup, merge and free intercommunicators between
# the same two groups at the same time
add_mpi_test(NAME intercomm_threads SOURCES intercomm_threads.c NP 2 4 5 TIMEOUT 120 LABELS comm threads)
target_link_libraries(mpitest_intercomm_threads PRIVATE Threads::Threads)
