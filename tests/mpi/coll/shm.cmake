# Shared-memory collectives across communicator lifecycles (included by tests/mpi/CMakeLists.txt).
add_mpi_test(NAME coll_shm SOURCES coll_shm.c NP 1 2 3 4 5 8 TIMEOUT 120 LABELS coll)
add_mpi_test(NAME coll_shm_async PROGRAM coll_shm NP 2 3 TIMEOUT 120 LABELS coll async
             ENV BATON_ASYNC_PROGRESS=1)
# Nonblocking shared-memory collectives run ahead at the call: over at once, or continued from the
# first step that waits (one late rank per round makes both happen).
add_mpi_test(NAME coll_ahead SOURCES coll_ahead.c NP 2 3 4 8 TIMEOUT 60 LABELS coll)
add_mpi_test(NAME coll_ahead_async PROGRAM coll_ahead NP 2 3 TIMEOUT 60 LABELS coll async
             ENV BATON_ASYNC_PROGRESS=1)
# A communicator's first collectives nonblocking: its region is set up meanwhile (deferred calls)
add_mpi_test(NAME coll_nb_first SOURCES coll_nb_first.c NP 1 2 3 4 8 TIMEOUT 60 LABELS coll)
add_mpi_test(NAME coll_nb_first_async PROGRAM coll_nb_first NP 2 3 TIMEOUT 60 LABELS coll async
             ENV BATON_ASYNC_PROGRESS=1)
add_mpi_test(NAME coll_nb_first_msgs PROGRAM coll_nb_first NP 3 TIMEOUT 60 LABELS coll ENV BATON_COLL_SHM=0)
