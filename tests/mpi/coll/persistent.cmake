# Persistent collectives (issue 5; included by tests/mpi/CMakeLists.txt).
add_mpi_test(NAME coll_persistent SOURCES coll_persistent.c NP 1 2 3 4 5 8 TIMEOUT 120 LABELS coll persistent)
add_mpi_test(NAME coll_persistent_async PROGRAM coll_persistent NP 2 3 TIMEOUT 120 LABELS coll persistent async
             ENV BATON_ASYNC_PROGRESS=1)
add_mpi_test(NAME coll_persistent_errors SOURCES coll_persistent_errors.c NP 1 2 3 4 TIMEOUT 60
             LABELS coll persistent)
# allocations per start of a bound persistent collective (zero), counted with a malloc wrapper
add_mpi_test(NAME coll_persistent_alloc SOURCES coll_persistent_alloc.c NP 1 2 3 4 TIMEOUT 180
             LABELS coll persistent)
# shared-memory persistent collectives (a region per operation): many alive, starts in different
# orders, mixed with blocking and nonblocking collectives; and the same with shared memory off
add_mpi_test(NAME coll_persistent_shm SOURCES coll_persistent_shm.c NP 1 2 3 4 5 8 TIMEOUT 180
             LABELS coll persistent)
add_mpi_test(NAME coll_persistent_shm_off PROGRAM coll_persistent_shm NP 2 4 TIMEOUT 180
             LABELS coll persistent ENV BATON_COLL_SHM=0)
add_mpi_test(NAME coll_persistent_shm_async PROGRAM coll_persistent_shm NP 2 3 TIMEOUT 180
             LABELS coll persistent async ENV BATON_ASYNC_PROGRESS=1)
# single copy (process_vm_readv of the root's / peers' bound buffers) is the default; without it
add_mpi_test(NAME coll_persistent_shm_two_copy PROGRAM coll_persistent_shm NP 2 3 4 8 TIMEOUT 180
             LABELS coll persistent ENV BATON_PCOLL_SINGLE_COPY=0)
add_mpi_test(NAME coll_persistent_alloc_noshm PROGRAM coll_persistent_alloc NP 2 4 TIMEOUT 180
             LABELS coll persistent ENV BATON_COLL_SHM=0)
