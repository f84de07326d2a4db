# Gather, gatherv, scatter, scatterv, allgather, allgatherv (coll_gather.c): once with the
# default selection, then once per algorithm of src/coll/algorithms.def forced through
# BATON_<COLL>_ALGORITHM (an override that cannot run, recursive doubling at a rank count that is
# not a power of two, falls back to the selection, so every check holds under every override).
set(_cg_np 1 2 3 4 5 8)
add_mpi_test(NAME coll_gather SOURCES coll_gather.c NP ${_cg_np} TIMEOUT 120 LABELS coll)
add_mpi_test(NAME coll_gather_binomial PROGRAM coll_gather NP ${_cg_np} TIMEOUT 120 LABELS coll
             ENV BATON_GATHER_ALGORITHM=binomial BATON_SCATTER_ALGORITHM=binomial)
add_mpi_test(NAME coll_gather_linear PROGRAM coll_gather NP ${_cg_np} TIMEOUT 120 LABELS coll
             ENV BATON_GATHER_ALGORITHM=linear BATON_SCATTER_ALGORITHM=linear BATON_GATHERV_ALGORITHM=linear
                 BATON_SCATTERV_ALGORITHM=linear)
add_mpi_test(NAME coll_gather_recursive_doubling PROGRAM coll_gather NP ${_cg_np} TIMEOUT 120 LABELS coll
             ENV BATON_ALLGATHER_ALGORITHM=recursive_doubling BATON_ALLGATHERV_ALGORITHM=recursive_doubling)
add_mpi_test(NAME coll_gather_bruck PROGRAM coll_gather NP ${_cg_np} TIMEOUT 120 LABELS coll
             ENV BATON_ALLGATHER_ALGORITHM=bruck BATON_ALLGATHERV_ALGORITHM=bruck)
add_mpi_test(NAME coll_gather_ring PROGRAM coll_gather NP ${_cg_np} TIMEOUT 120 LABELS coll
             ENV BATON_ALLGATHER_ALGORITHM=ring BATON_ALLGATHERV_ALGORITHM=ring)
