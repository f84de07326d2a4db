# Groups, communicators, attributes and info (included by tests/mpi/CMakeLists.txt).
# Point-to-point only: no collectives exist yet.

# every group constructor, compare and translate against hand-computed member lists; error classes
add_mpi_test(NAME group_ops SOURCES group_ops.c NP 1 2 3 4 8 TIMEOUT 60 LABELS comm)
