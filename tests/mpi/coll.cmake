# Collective tests (included by tests/mpi/CMakeLists.txt).
add_mpi_test(NAME coll_basic SOURCES coll_basic.c NP 1 2 3 4 5 8 TIMEOUT 90 LABELS coll)
