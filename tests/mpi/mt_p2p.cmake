# Regression tests for Baton bugs found by running MPICH's test/mpi suite (pt2pt, part, errhan,
# init, basic, attr, group, datatype, topo, mpi_t, errors) against Baton.

# MPI_Reduce_local: MPI_IN_PLACE (either buffer) and aliased buffers give MPI_ERR_BUFFER
# (MPI_IN_PLACE as inbuf used to crash).
add_mpi_test(NAME mtfix_p2p_reduce_local SOURCES mtfix_p2p_reduce_local.c NP 1 TIMEOUT 30 LABELS errors)

# A user error code/class returned by an attribute copy/delete callback (communicator, datatype,
# window) is what the MPI call returns, not MPI_ERR_OTHER.
add_mpi_test(NAME mtfix_p2p_callback_error SOURCES mtfix_p2p_callback_error.c NP 1 2 TIMEOUT 30 LABELS errors)

# NULL output pointers (Comm_size/rank, Type_size*, Get_count/elements, Test*/Wait*any/some,
# Iprobe/Improbe/Mprobe, Request_get_status, version/thread queries, ...) give MPI_ERR_ARG, not a crash.
add_mpi_test(NAME mtfix_p2p_null_args SOURCES mtfix_p2p_null_args.c NP 1 2 TIMEOUT 30 LABELS errors)

# A failed MPI_Cart_create / MPI_Graph_create sets the output handle to MPI_COMM_NULL.
add_mpi_test(NAME mtfix_p2p_topo_error_null SOURCES mtfix_p2p_topo_error_null.c NP 1 3 TIMEOUT 30 LABELS topo)
