# Queued communication (draft chapter 13): matching, queues, enqueued starts and waits, fence.

# MPI_Match/Matchall/Imatch/Imatchall/Is_matched on persistent point-to-point requests (every
# protocol size, self, PROC_NULL, wildcards, ties by Match order, vector type, synchronous mode,
# early arrivals), default queues (ring rounds with fences, many queues at once), matched requests
# through MPI_Start/MPI_Wait
add_mpi_test(NAME queue_match SOURCES queue_match.c NP 1 2 3 4 8 TIMEOUT 90 LABELS queue)
# matched channels on any transport (with BATON_TRANSPORT=ucx and in the two-host runs the starts
# travel as engine messages): sends running ahead of their receives (eager and rendezvous sizes,
# nothing lands before the receive starts), synchronous mode, no collision with an ordinary
# wildcard receive, truncation through a queue, the ring of Example 13.1
add_mpi_test(NAME queue_wire SOURCES queue_wire.c NP 2 3 4 8 TIMEOUT 90 LABELS queue)
# the same with the progress thread advancing queues beside the application thread
add_mpi_test(NAME queue_match_async PROGRAM queue_match NP 2 4 TIMEOUT 90 LABELS queue async
             ENV BATON_ASYNC_PROGRESS=1)

# every misuse the chapter names is refused with its class and changes nothing (unmatched,
# nonblocking, generalized requests; Startall with one bad request; waits on the wrong queue;
# Wait/Test/Cancel/Request_free/Start on a request whose enqueued start is pending; freeing a busy
# queue; unsupported types); asynchronous errors (truncation) reported once by the next fence or
# enqueue; the library works afterwards
add_mpi_test(NAME queue_errors SOURCES queue_errors.c NP 1 2 3 4 8 TIMEOUT 60 LABELS queue)

# MPIX_QUEUE_TYPE_THREAD: host functions ordered with enqueued starts and waits (a start never
# begins before the host task enqueued before it, a host task after a wait sees the received data,
# nothing of round k+1 starts before round k's check), two thread queues beside a default queue
# and ordinary traffic from the main thread, under MPI_THREAD_SINGLE; runs under TSan ("threads")
add_mpi_test(NAME queue_thread SOURCES queue_thread.c NP 1 2 3 4 8 TIMEOUT 90 LABELS queue threads)

# MPIX_QUEUE_TYPE_CUDA on real streams: starts wait for the stream work before them, the stream
# waits for the messages, two streams at once. Built with the CUDA toolkit; skipped (exit 77, with
# a line saying why) where there is no GPU.
if(CUDAToolkit_FOUND)
  add_mpi_test(NAME queue_cuda SOURCES queue_cuda.c NP 1 2 4 TIMEOUT 90 LABELS queue cuda)
  target_link_libraries(mpitest_queue_cuda PRIVATE CUDA::cudart)
  # Device-memory buffers written and read by kernels (compiled at run time with NVRTC).
  add_mpi_test(NAME queue_cuda_device SOURCES queue_cuda_device.c NP 1 2 4 TIMEOUT 90 LABELS queue cuda)
  target_link_libraries(mpitest_queue_cuda_device PRIVATE CUDA::cudart CUDA::nvrtc)
  # CUDA::nvrtc drags in the driver library (libcuda.so.1), which machines without a GPU lack: the
  # test uses only the runtime and NVRTC, so keep the driver off its needed list (it must start,
  # then skip). Optimized builds dropped it already; Debug/ASan builds did not.
  target_link_options(mpitest_queue_cuda_device PRIVATE -Wl,--as-needed)
  foreach(np 1 2 4)
    set_tests_properties(queue_cuda.np${np} queue_cuda_device.np${np} PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
endif()

# Example 13.1 as printed (queue handles by value) compiles unchanged as strict C11 (_Generic) and
# as C++11 (overloads), warnings as errors; the pointer spelling too.
add_test(NAME queue_header_c11
         COMMAND ${CMAKE_C_COMPILER} -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only
                 -I${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/examples/queue_ring.c)
add_test(NAME queue_header_cxx11
         COMMAND ${CMAKE_CXX_COMPILER} -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only
                 -I${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/examples/queue_ring.c)
add_test(NAME queue_header_c11_pointers
         COMMAND ${CMAKE_C_COMPILER} -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only
                 -I${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_LIST_DIR}/queue_header_forms.c)
add_test(NAME queue_header_cxx11_pointers
         COMMAND ${CMAKE_CXX_COMPILER} -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only
                 -I${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_LIST_DIR}/queue_header_forms.c)
set_tests_properties(queue_header_c11 queue_header_cxx11 queue_header_c11_pointers queue_header_cxx11_pointers PROPERTIES LABELS "unit;queue"
                     TIMEOUT 60)

# the examples run as tests: Example 13.1 (checks its data) and the thread-queue halo exchange
# (checks against a serial run)
add_mpi_test(NAME example_queue_ring SOURCES ${PROJECT_SOURCE_DIR}/examples/queue_ring.c NP 1 2 4 8 TIMEOUT 60
             LABELS queue examples)
add_mpi_test(NAME example_queue_halo_thread SOURCES ${PROJECT_SOURCE_DIR}/examples/queue_halo_thread.c NP 1 2 4
             TIMEOUT 90 LABELS queue threads examples)
target_link_libraries(mpitest_example_queue_halo_thread PRIVATE m)

# persistent collectives in queues: collective MPI_Match (completes only when every member matched),
# matched allreduce/bcast with matched point-to-point in default and thread queues, and via
# MPI_Startall
# (registered once the persistent collectives of src/coll/persistent.cpp are in the tree)
if(EXISTS ${PROJECT_SOURCE_DIR}/src/coll/persistent.cpp)
  add_mpi_test(NAME queue_coll SOURCES queue_coll.c NP 1 2 3 4 8 TIMEOUT 90 LABELS queue threads)
endif()
