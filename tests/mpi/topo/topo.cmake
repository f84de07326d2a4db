# Process topologies and neighborhood collectives (included by tests/mpi/CMakeLists.txt).
add_mpi_test(NAME topo SOURCES topo.c NP 1 2 3 4 5 7 8 TIMEOUT 120 LABELS coll topo)
add_mpi_test(NAME neighbor SOURCES neighbor.c NP 1 2 3 4 5 6 7 8 TIMEOUT 120 LABELS coll topo)

# A failed MPI_Cart_create / MPI_Graph_create sets the output handle to MPI_COMM_NULL.
add_mpi_test(NAME topo_create_error_null SOURCES topo_create_error_null.c NP 1 3 TIMEOUT 30 LABELS topo)
