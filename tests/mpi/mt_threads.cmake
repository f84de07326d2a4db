# Regression tests for the bugs that MPICH's test/mpi/threads suite found (mtfix_threads_*).

# A buffered send reclaims the block of an earlier message whose receiver already has it (the
# completion notice still unread because the sender made no MPI call since) instead of failing
# with MPI_ERR_BUFFER; a really full buffer still fails at once. One host (a shared-memory flag).
add_mpi_test(NAME mtfix_threads_bsend_reclaim SOURCES mtfix_bsend_reclaim.c NP 2 TIMEOUT 60 LABELS buffers)
