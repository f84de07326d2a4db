# Generalized requests (MPI-4.1 13.2; included by tests/mpi/CMakeLists.txt).
find_package(Threads REQUIRED)

# MPI_Grequest_start/_complete with Wait/Test/Request_get_status*/Request_free/Cancel, the order
# and count of query_fn/free_fn/cancel_fn calls, callback errors (MPI_ERR_IN_STATUS), mixed with
# Isend/Irecv in Waitall/Waitany/Waitsome/Testsome/Testall, error cases with MPI_ERRORS_RETURN
add_mpi_test(NAME grequest SOURCES grequest.c NP 1 2 TIMEOUT 30 LABELS requests)

# MPI_THREAD_MULTIPLE: a helper thread completes the grequest while the main thread blocks in
# Wait/Waitall (with a pending Irecv)/Waitany; the call returns promptly after the completion.
# Also with the progress thread on.
add_mpi_test(NAME grequest_threads SOURCES grequest_threads.c NP 1 2 TIMEOUT 30 LABELS threads)
target_link_libraries(mpitest_grequest_threads PRIVATE Threads::Threads)
add_mpi_test(NAME grequest_threads_async PROGRAM grequest_threads NP 1 2 TIMEOUT 30 LABELS threads async
             ENV BATON_ASYNC_PROGRESS=1)
