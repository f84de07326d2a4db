# The MPI tool information interface (mpit.c; variables listed in docs/mpit.md).
# The plain run checks the defaults; the second sets knobs in the environment and passes the
# BATON_SHM_EAGER_MAX it set, which the control variable must read (before MPI_Init, during, after).
add_mpi_test(NAME mpit SOURCES mpit.c NP 1 2 TIMEOUT 60 LABELS env)
add_mpi_test(NAME mpit_env PROGRAM mpit NP 1 2 TIMEOUT 60 LABELS env ARGS 16384
             ENV BATON_SHM_EAGER_MAX=16384 BATON_SHM_COOP_MIN=0 BATON_ALLREDUCE_ALGORITHM=ring
                 BATON_THREAD_LEVEL=2 BATON_SPIN_US=7 BATON_YIELD_US=1500 BATON_COLL_SHM=0)
