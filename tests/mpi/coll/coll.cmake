# Collective tests (included by tests/mpi/CMakeLists.txt).
add_mpi_test(NAME coll_basic SOURCES coll_basic.c NP 1 2 3 4 5 8 TIMEOUT 90 LABELS coll)
add_mpi_test(NAME coll_basic_async PROGRAM coll_basic NP 2 3 4 TIMEOUT 90 LABELS coll async
             ENV BATON_ASYNC_PROGRESS=1)
# 100,000 nonblocking collectives outstanding on one communicator, memory per pending operation
# (the first ones begin the shared-memory region's setup: they all wait for it, deferred, then run
# the shared-memory algorithms)
add_mpi_test(NAME coll_outstanding SOURCES coll_outstanding.c NP 2 3 TIMEOUT 120 LABELS coll)
# the same on the message algorithms
add_mpi_test(NAME coll_outstanding_msgs PROGRAM coll_outstanding NP 2 3 TIMEOUT 120 LABELS coll
             ENV BATON_COLL_SHM=0)
# MPIX_Comm_agree / iagree: ordered among agreements only (mpi4py 4's test_ulfm agrees before a
# barrier that the other ranks enter first)
add_mpi_test(NAME coll_agree SOURCES coll_agree.c NP 1 2 3 4 8 TIMEOUT 60 LABELS coll)
add_mpi_test(NAME coll_agree_async PROGRAM coll_agree NP 2 4 TIMEOUT 60 LABELS coll async ENV BATON_ASYNC_PROGRESS=1)
