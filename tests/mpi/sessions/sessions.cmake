# The Sessions model (MPI-4.1 11.3), included by tests/mpi/CMakeLists.txt.
find_package(Threads REQUIRED)

# Sessions without MPI_Init (process sets, pset info, groups, MPI_Comm_create_from_group with a
# ring and an allreduce, two sessions at once, disjoint and overlapping groups, one string tag
# twice, a group mismatch caught as MPI_ERR_NOT_SAME, error handlers, error classes), then MPI_Init
# with a session alive, a session still working after MPI_Finalize, and MPI_Session_init refused
# once the runtime went down
add_mpi_test(NAME session_basic SOURCES session_basic.c NP 1 2 3 4 TIMEOUT 60 LABELS sessions)

# MPI_THREAD_MULTIPLE sessions: threads create communicators from groups at the same time with
# different string tags (and init/finalize sessions of their own) without crossing
add_mpi_test(NAME session_threads SOURCES session_threads.c NP 1 2 4 TIMEOUT 60 LABELS sessions threads)
target_link_libraries(mpitest_session_threads PRIVATE Threads::Threads)
