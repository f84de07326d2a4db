# One-sided communication (MPI-4.1 chapter 12): src/rma/, src/abi/abi_rma.cpp, docs/rma.md.
add_mpi_test(NAME rma_fence SOURCES rma_fence.c NP 1 2 3 4 8 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_passive SOURCES rma_passive.c NP 1 2 3 4 8 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_pscw SOURCES rma_pscw.c NP 1 2 3 4 8 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_errors SOURCES rma_errors.c NP 1 2 4 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_threads SOURCES rma_threads.c NP 1 2 4 TIMEOUT 60 LABELS rma threads)
# With the progress thread: passive target without the target calling MPI, and the other tests.
add_mpi_test(NAME rma_async SOURCES rma_async.c NP 2 4 TIMEOUT 60 LABELS rma async ENV BATON_ASYNC_PROGRESS=1)
add_mpi_test(NAME rma_passive_async SOURCES rma_passive.c NP 2 4 TIMEOUT 60 LABELS rma async
             ENV BATON_ASYNC_PROGRESS=1)
# Puts and gets through messages also between ranks of one host (the direct copy path off).
add_mpi_test(NAME rma_fence_msg SOURCES rma_fence.c NP 2 4 8 TIMEOUT 60 LABELS rma ENV BATON_RMA_DIRECT=0)
add_mpi_test(NAME rma_passive_msg SOURCES rma_passive.c NP 2 4 TIMEOUT 60 LABELS rma ENV BATON_RMA_DIRECT=0)
add_mpi_test(NAME rma_pscw_msg SOURCES rma_pscw.c NP 2 4 TIMEOUT 60 LABELS rma ENV BATON_RMA_DIRECT=0)
