# MPI-4.1 buffered-mode buffers (process, session, communicator; automatic), flushes,
# MPI_Comm_disconnect, MPI_Comm_get_parent, MPI_Get_hw_resource_info. Included by
# tests/mpi/CMakeLists.txt.
find_package(Threads REQUIRED)

# The communicator's buffer before the process buffer (and the reverse), Ibsend/Bsend_init through
# it, detach giving back address and size, MPI_BUFFER_AUTOMATIC with many growing sends, a
# communicator freed with its buffer attached, MPI_Comm_get_parent, error classes
add_mpi_test(NAME buffers_attach SOURCES buffers_attach.c NP 1 2 4 TIMEOUT 60 LABELS pt2pt buffers)

# Flushes complete only once the receiver (sleeping 0.3 s) took the rendezvous-sized message:
# Comm_flush_buffer / Comm_iflush_buffer (a later message does not hold it up), Buffer_(i)flush
add_mpi_test(NAME buffers_flush SOURCES buffers_flush.c NP 1 2 4 TIMEOUT 60 LABELS pt2pt buffers)

# Session buffers: communicators from a session's process set (and their dups, and those made
# from their groups) use the session's buffer, MPI_COMM_WORLD does not; a communicator buffer wins;
# flush/iflush; errors on the session's handler; automatic buffer left attached at Session_finalize
add_mpi_test(NAME buffers_session SOURCES buffers_session.c NP 1 2 4 TIMEOUT 60 LABELS pt2pt buffers sessions)

# MPI_Comm_disconnect after Isend/Irecv (eager, rendezvous, unexpected), a Bsend through the
# communicator's buffer, an Ibarrier and started persistent requests; errors; MPI_Comm_get_parent;
# MPI_Get_hw_resource_info against sched_getaffinity
add_mpi_test(NAME buffers_disconnect SOURCES buffers_disconnect.c NP 1 2 4 TIMEOUT 60 LABELS pt2pt buffers)

# MPI_THREAD_MULTIPLE: 4 threads each attach, use, flush/iflush and detach their own
# communicator's buffer while the main thread sends through an automatic process buffer
add_mpi_test(NAME buffers_threads SOURCES buffers_threads.c NP 1 2 4 TIMEOUT 60 LABELS pt2pt buffers threads)
target_link_libraries(mpitest_buffers_threads PRIVATE Threads::Threads)

# A buffered send reclaims the block of an earlier message whose receiver already has it (the
# completion notice still unread because the sender made no MPI call since) instead of failing
# with MPI_ERR_BUFFER; a really full buffer still fails at once. One host (a shared-memory flag).
# (Found by MPICH's test/mpi/threads suite.)
add_mpi_test(NAME buffers_bsend_reclaim SOURCES buffers_bsend_reclaim.c NP 2 TIMEOUT 60 LABELS buffers)
