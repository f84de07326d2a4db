# Partitioned point-to-point communication (MPI-4.1 chapter 4): MPI_Psend_init / MPI_Precv_init
# (and _c), MPI_Pready / _range / _list, MPI_Parrived. Pairs of ranks (one rank: itself) exchange
# both ways: many starts with new data, every ready order, different partitionings at the two
# ends, Parrived polling, Startall with ordinary persistent requests, init-order matching of pairs
# on one (comm, peer, tag), no matching with ordinary traffic, MPI_PROC_NULL, Request_free, large
# and empty messages, and every error class with MPI_ERRORS_RETURN.
add_mpi_test(NAME partitioned SOURCES partitioned.c NP 1 2 4 TIMEOUT 60 LABELS pt2pt partitioned)

# MPI_THREAD_MULTIPLE: 4 threads per rank each fill and mark their own partitions (MPI_Pready /
# MPI_Pready_list) and poll MPI_Parrived for their own receive partitions, checking the data
add_mpi_test(NAME partitioned_threads SOURCES partitioned_threads.c NP 1 2 TIMEOUT 60 LABELS pt2pt partitioned threads)
target_link_libraries(mpitest_partitioned_threads PRIVATE Threads::Threads)
