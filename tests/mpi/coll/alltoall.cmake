# alltoall(v,w), reduce_scatter(_block), scan, exscan (included by tests/mpi/CMakeLists.txt).
# Each program runs once with the default selection and once per algorithm forced through its
# BATON_<COLL>_ALGORITHM override (src/coll/algorithms.def).
add_mpi_test(NAME coll_alltoall SOURCES coll_alltoall.c NP 1 2 3 4 5 8 TIMEOUT 120 LABELS coll)
add_mpi_test(NAME coll_alltoall_bruck PROGRAM coll_alltoall NP 1 2 3 4 5 8 TIMEOUT 120 LABELS coll
             ENV BATON_ALLTOALL_ALGORITHM=bruck)
add_mpi_test(NAME coll_alltoall_linear PROGRAM coll_alltoall NP 1 2 3 4 5 8 TIMEOUT 120 LABELS coll
             ENV BATON_ALLTOALL_ALGORITHM=linear BATON_ALLTOALLV_ALGORITHM=linear BATON_ALLTOALLW_ALGORITHM=linear)
add_mpi_test(NAME coll_alltoall_pairwise PROGRAM coll_alltoall NP 1 2 3 4 5 8 TIMEOUT 120 LABELS coll
             ENV BATON_ALLTOALL_ALGORITHM=pairwise BATON_ALLTOALLV_ALGORITHM=pairwise
                 BATON_ALLTOALLW_ALGORITHM=pairwise)
add_mpi_test(NAME coll_alltoall_shm PROGRAM coll_alltoall NP 1 2 3 4 5 8 TIMEOUT 120 LABELS coll
             ENV BATON_ALLTOALL_ALGORITHM=shm)
add_mpi_test(NAME coll_alltoall_single_copy PROGRAM coll_alltoall NP 1 2 3 4 5 8 TIMEOUT 120 LABELS coll
             ENV BATON_ALLTOALL_ALGORITHM=single_copy)
add_mpi_test(NAME coll_reduce_scatter_scan SOURCES coll_reduce_scatter_scan.c NP 1 2 3 4 5 8 TIMEOUT 120 LABELS coll)
add_mpi_test(NAME coll_reduce_scatter_scan_halving PROGRAM coll_reduce_scatter_scan NP 1 2 3 4 5 8 TIMEOUT 120
             LABELS coll
             ENV BATON_REDUCE_SCATTER_ALGORITHM=recursive_halving BATON_REDUCE_SCATTER_BLOCK_ALGORITHM=recursive_halving
                 BATON_SCAN_ALGORITHM=recursive_doubling BATON_EXSCAN_ALGORITHM=recursive_doubling)
add_mpi_test(NAME coll_reduce_scatter_scan_pairwise PROGRAM coll_reduce_scatter_scan NP 1 2 3 4 5 8 TIMEOUT 120
             LABELS coll
             ENV BATON_REDUCE_SCATTER_ALGORITHM=pairwise BATON_REDUCE_SCATTER_BLOCK_ALGORITHM=pairwise
                 BATON_SCAN_ALGORITHM=linear BATON_EXSCAN_ALGORITHM=linear)
