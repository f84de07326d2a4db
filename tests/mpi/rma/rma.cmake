# One-sided communication (MPI-4.1 chapter 12): src/rma/, src/abi/abi_rma.cpp, docs/rma.md.
add_mpi_test(NAME rma_fence SOURCES rma_fence.c NP 1 2 3 4 8 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_passive SOURCES rma_passive.c NP 1 2 3 4 8 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_pscw SOURCES rma_pscw.c NP 1 2 3 4 8 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_errors SOURCES rma_errors.c NP 1 2 4 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_threads SOURCES rma_threads.c NP 1 2 4 TIMEOUT 60 LABELS rma threads)
# With the progress thread: passive target without the target calling MPI, and the other tests.
add_mpi_test(NAME rma_async SOURCES rma_async.c NP 2 4 TIMEOUT 60 LABELS rma async ENV BATON_ASYNC_PROGRESS=1)
add_mpi_test(NAME rma_passive_async PROGRAM rma_passive NP 2 4 TIMEOUT 60 LABELS rma async
             ENV BATON_ASYNC_PROGRESS=1)
# Puts and gets through messages also between ranks of one host (the direct copy path off).
add_mpi_test(NAME rma_fence_msg PROGRAM rma_fence NP 2 4 8 TIMEOUT 60 LABELS rma ENV BATON_RMA_DIRECT=0)
add_mpi_test(NAME rma_passive_msg PROGRAM rma_passive NP 2 4 TIMEOUT 60 LABELS rma ENV BATON_RMA_DIRECT=0)
add_mpi_test(NAME rma_pscw_msg PROGRAM rma_pscw NP 2 4 TIMEOUT 60 LABELS rma ENV BATON_RMA_DIRECT=0)

# Found by running MPICH's test/mpi/rma suite against Baton:
# many operations outstanding at one origin don't slow the matching of the window's other messages
add_mpi_test(NAME rma_many_ops SOURCES rma_many_ops.c NP 3 4 TIMEOUT 60 LABELS rma)
# one access spanning adjacent attached regions of a dynamic window
add_mpi_test(NAME rma_dynamic_span SOURCES rma_dynamic_span.c NP 1 2 4 TIMEOUT 60 LABELS rma)
# MPI_Win_shared_query on windows of every flavor
add_mpi_test(NAME rma_shared_query SOURCES rma_shared_query.c NP 1 2 4 TIMEOUT 60 LABELS rma)
# accumulates that move no data are no-ops whatever their datatypes
add_mpi_test(NAME rma_zero_count_acc SOURCES rma_zero_count_acc.c NP 1 2 4 TIMEOUT 60 LABELS rma)
# target datatypes of more pieces than the header holds (direct copy and through messages)
add_mpi_test(NAME rma_many_pieces SOURCES rma_many_pieces.c NP 1 2 3 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_many_pieces_msg PROGRAM rma_many_pieces NP 2 TIMEOUT 60 LABELS rma
             ENV BATON_RMA_DIRECT=0)
# a target polling its window with MPI_Win_sync / MPI_Win_flush advances accumulates aimed at it
# (mpi4py 4's util.sync.Mutex hung at 2 ranks)
add_mpi_test(NAME rma_spin_sync SOURCES rma_spin_sync.c NP 2 3 4 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_spin_sync_msg PROGRAM rma_spin_sync NP 2 3 TIMEOUT 60 LABELS rma ENV BATON_RMA_DIRECT=0)
# operations aimed at this process are complete when their call returns (mpi4py 3.1's test_rma
# frees a result buffer before the closing fence)
add_mpi_test(NAME rma_self_complete SOURCES rma_self_complete.c NP 1 2 4 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME rma_self_complete_msg PROGRAM rma_self_complete NP 2 TIMEOUT 60 LABELS rma ENV BATON_RMA_DIRECT=0)
