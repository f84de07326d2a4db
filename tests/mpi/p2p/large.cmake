# Messages above 2 GiB (included by tests/mpi/CMakeLists.txt). Each run holds two 2200 MiB
# buffers (one per rank), so the label `large` lets a constrained machine skip them. About 10 s of
# CPU per run; the timeout leaves room for sanitizer builds on a loaded machine.

# Send_c/Recv_c of > INT_MAX bytes, one element of a > 2 GiB contiguous type (received as the
# type and as basic elements), Isend_c/Irecv_c; counts and elements checked, every byte verified;
# through the single-copy (process_vm_readv, the default) rendezvous path and through the
# pipelined one
add_mpi_test(NAME large_messages SOURCES large_messages.c NP 2 TIMEOUT 240 LABELS large)
add_mpi_test(NAME large_messages_pipelined PROGRAM large_messages NP 2 TIMEOUT 240 LABELS large
             ENV BATON_SHM_CMA=0)
# The program's own fill and check loops (eight passes over 2200 MiB) are compiled optimized in
# every build: at the sanitizer builds' -O0 they were most of the test's time (the library keeps
# its build's flags). The longest tests here: started first when ctest has no timings yet.
target_compile_options(mpitest_large_messages PRIVATE -O2)
set_tests_properties(large_messages.np2 large_messages_pipelined.np2 PROPERTIES COST 100)
