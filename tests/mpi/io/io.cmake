# File I/O (MPI-4.1 chapter 14): src/io/, src/abi/abi_file*.cpp, docs/io.md.
add_mpi_test(NAME io_basic SOURCES io_basic.c NP 1 2 4 TIMEOUT 60 LABELS io)
