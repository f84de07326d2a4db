# Collectives on intercommunicators (MPI-4.1 6.2.2; src/coll/algorithms/inter/): every collective
# MPI defines there in blocking, nonblocking and persistent form, both groups as root, derived
# datatypes, a non-commutative op, zero counts, overlapping nonblocking collectives, and the
# refusals (bad root, MPI_IN_PLACE, scan/exscan). Unequal groups (world rank % 3 == 0 against the
# rest) from 3 ranks on.
add_mpi_test(NAME intercomm_coll SOURCES intercomm_coll.c NP 2 3 4 5 8 TIMEOUT 60 LABELS coll intercomm)
# Overrides naming intracommunicator algorithms leave intercommunicator collectives to their own
# lines (coll::serves); the intracommunicator collectives of the test still take them.
add_mpi_test(NAME intercomm_coll_override PROGRAM intercomm_coll NP 3 8 TIMEOUT 60 LABELS coll intercomm
             ENV BATON_BCAST_ALGORITHM=binomial BATON_ALLREDUCE_ALGORITHM=ring BATON_ALLTOALL_ALGORITHM=bruck
                 BATON_BARRIER_ALGORITHM=dissemination BATON_GATHER_ALGORITHM=binomial)
