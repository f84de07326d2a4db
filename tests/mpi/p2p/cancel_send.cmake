# MPI_Cancel of pending sends (every mode, persistent, self / shared memory; the ucx.* variant
# comes from twohost.cmake through the pt2pt label).
add_mpi_test(NAME cancel_send SOURCES cancel_send.c NP 2 4 TIMEOUT 60 LABELS pt2pt)
