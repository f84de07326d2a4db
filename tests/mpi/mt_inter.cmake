# Intercommunicator corners that MPICH's test/mpi coll/ and comm/ intercommunicator tests do not
# reach (they all pass against Baton; see mt_inter_corners.c): a ring of MPI_COMM_SELF
# intercommunicators built in different orders, interleaved groups with MPI_ANY_SOURCE,
# MPI_Comm_idup_with_info, a per-communicator buffer, a nonblocking collective pending across
# dup and merge, MPI_Comm_disconnect with a pending large send, MPI_Win_create refused.
add_mpi_test(NAME mtfix_inter_corners SOURCES mt_inter_corners.c NP 2 3 4 5 TIMEOUT 60 LABELS comm intercomm)
