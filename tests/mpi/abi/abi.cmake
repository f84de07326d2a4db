# MPI-5.0 ABI handle conversion (included by tests/mpi/CMakeLists.txt).

# MPI_<Handle>_toint / _fromint for every kind: predefined and null handles keep their ABI value,
# user handles round-trip to distinct integers and work through the converted-back handles
add_mpi_test(NAME abi_handles SOURCES abi_handles.c NP 1 2 4 TIMEOUT 60 LABELS comm datatype)
