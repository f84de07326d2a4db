# Regressions found by running MPICH's test/mpi/rma suite against Baton (src/rma/, src/abi/abi_rma.cpp).
add_mpi_test(NAME mtfix_rma_many_ops SOURCES mtfix_rma_many_ops.c NP 3 4 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME mtfix_rma_dyn_span SOURCES mtfix_rma_dyn_span.c NP 1 2 4 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME mtfix_rma_shared_query SOURCES mtfix_rma_shared_query.c NP 1 2 4 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME mtfix_rma_zero_acc SOURCES mtfix_rma_zero_acc.c NP 1 2 4 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME mtfix_rma_many_pieces SOURCES mtfix_rma_many_pieces.c NP 1 2 3 TIMEOUT 60 LABELS rma)
add_mpi_test(NAME mtfix_rma_many_pieces_msg SOURCES mtfix_rma_many_pieces.c NP 2 TIMEOUT 60 LABELS rma
             ENV BATON_RMA_DIRECT=0)
