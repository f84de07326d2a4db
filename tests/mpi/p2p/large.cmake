# Messages above 2 GiB (included by tests/mpi/CMakeLists.txt). Each run holds two 2200 MiB
# buffers (one per rank), so the label `large` lets a constrained machine skip them. About 10 s of
# CPU per run; the timeout leaves room for sanitizer builds on a loaded machine.

# Send_c/Recv_c of > INT_MAX bytes, one element of a > 2 GiB contiguous type (received as the
# type and as basic elements), Isend_c/Irecv_c; counts and elements checked, every byte verified;
# through the single-copy (process_vm_readv, the default) rendezvous path and through the
# pipelined one
add_mpi_test(NAME large_messages SOURCES large_messages.c NP 2 TIMEOUT 240 LABELS large)
add_mpi_test(NAME large_messages_pipelined SOURCES large_messages.c NP 2 TIMEOUT 240 LABELS large
             ENV BATON_SHM_CMA=0)
