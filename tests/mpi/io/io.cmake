# File I/O (MPI-4.1 chapter 14): src/io/, src/abi/abi_file*.cpp, docs/io.md.
add_mpi_test(NAME io_basic SOURCES io_basic.c NP 1 2 4 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_views SOURCES io_views.c NP 1 2 3 4 8 TIMEOUT 120 LABELS io)
add_mpi_test(NAME io_shared SOURCES io_shared.c NP 1 2 4 8 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_nonblocking SOURCES io_nonblocking.c NP 1 2 4 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_datarep SOURCES io_datarep.c NP 1 2 4 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_atomic SOURCES io_atomic.c NP 2 4 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_errors SOURCES io_errors.c NP 1 2 4 TIMEOUT 60 LABELS io)
add_mpi_test(NAME io_async SOURCES io_async.c NP 2 4 TIMEOUT 90 LABELS io async ENV BATON_ASYNC_PROGRESS=1)
