# Regression tests for the bugs that MPICH's test/mpi/threads suite found (mtfix_threads_*).

# A buffered send reclaims the block of an earlier message whose receiver already has it (the
# completion notice still unread because the sender made no MPI call since) instead of failing
# with MPI_ERR_BUFFER; a really full buffer still fails at once. One host (a shared-memory flag).
add_mpi_test(NAME mtfix_threads_bsend_reclaim SOURCES mtfix_bsend_reclaim.c NP 2 TIMEOUT 60 LABELS buffers)

# MPI_Intercomm_create from several threads at once, each on its own local_comm and peer_comm,
# same groups and tag: the constructions must not mix (the bridge agreement over the processes'
# hidden communicator was told apart only by the groups and the tag).
add_mpi_test(NAME mtfix_threads_intercomm_create SOURCES mtfix_intercomm_threads.c NP 2 4 TIMEOUT 60
             LABELS comm threads)
