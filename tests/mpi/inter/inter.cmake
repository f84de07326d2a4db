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

# Corners that MPICH's test/mpi coll/ and comm/ intercommunicator tests do not reach (they all pass
# against Baton; see intercomm_corners.c): a ring of MPI_COMM_SELF intercommunicators built in
# different orders, interleaved groups with MPI_ANY_SOURCE, MPI_Comm_idup_with_info, a
# per-communicator buffer, a nonblocking collective pending across dup and merge,
# MPI_Comm_disconnect with a pending large send, MPI_Win_create refused.
add_mpi_test(NAME intercomm_corners SOURCES intercomm_corners.c NP 2 3 4 5 TIMEOUT 60 LABELS comm intercomm)

# MPI_Intercomm_create from several threads at once, each on its own local_comm and peer_comm,
# same groups and tag: the constructions must not mix (the bridge agreement over the processes'
# hidden communicator was told apart only by the groups and the tag; found by MPICH's
# test/mpi/threads suite).
add_mpi_test(NAME intercomm_create_threads SOURCES intercomm_create_threads.c NP 2 4 TIMEOUT 60
             LABELS comm threads)
