# Groups, communicators, attributes and info (included by tests/mpi/CMakeLists.txt).
# Point-to-point only: no collectives exist yet.

# every group constructor, compare and translate against hand-computed member lists; error classes
add_mpi_test(NAME group_ops SOURCES group_ops.c NP 1 2 3 4 8 TIMEOUT 60 LABELS comm)

# split (colors, keys, MPI_UNDEFINED), split_type (shared, hw_guided, hw_unguided, undefined),
# create (one group, disjoint groups), create_group (concurrent disjoint groups, subset, reversed),
# dup / dup_with_info / idup / idup_with_info, compare, names, info hints; rings check rank order
add_mpi_test(NAME comm_create SOURCES comm_create.c NP 1 2 3 4 8 TIMEOUT 60 LABELS comm)

# attribute copy/delete callbacks at dup, replace, delete_attr and free (order, values,
# extra_state), predefined callbacks, keyval freed while attached, failing callbacks,
# predefined keys, deprecated MPI-1 names, keyvals clear of the predefined ranges
add_mpi_test(NAME attr_callbacks SOURCES attr_callbacks.c NP 1 2 4 TIMEOUT 60 LABELS comm)

# info objects: round trips, key order, get_string length protocol, limits, errors, MPI_INFO_ENV
add_mpi_test(NAME info_basic SOURCES info_basic.c NP 1 2 TIMEOUT 60 LABELS comm)

# 20,000 create/free cycles (dup, split, create, create_group) and 2,000 communicators alive at once.
# Each creation is a gather + broadcast over point-to-point; at 8 ranks on a 2-core machine one
# costs about 2.5 ms (scheduling, not work), so 8 ranks run 5,000 cycles to stay inside the timeout.
# (300 s: sanitizer builds run it several times slower, and CI runs two tests at once.) The
# sanitizer builds run 2,000 cycles: a memory error shows in any cycle, and the 20,000 (more than
# the 16,384 context-id pairs, so ids that are not given back run out) run in the optimized build.
if(BATON_SANITIZE)
  set(_manycreate_args ARGS 2000)
endif()
add_mpi_test(NAME comm_manycreate SOURCES comm_manycreate.c NP 1 2 3 4 TIMEOUT 300 LABELS comm ${_manycreate_args})
add_mpi_test(NAME comm_manycreate_5k PROGRAM comm_manycreate NP 8 TIMEOUT 300 ARGS 5000 LABELS comm)

# error classes: freeing predefined or freed communicators, bad colors / split types / tags /
# groups / keyvals / info, intercommunicator queries, user error handlers on the failing comm
add_mpi_test(NAME comm_errors SOURCES comm_errors.c NP 1 2 4 TIMEOUT 60 LABELS comm)

# MPI_Finalize deletes MPI_COMM_SELF's attributes, then MPI_COMM_WORLD's, with MPI still usable
add_mpi_test(NAME attr_finalize SOURCES attr_finalize.c NP 1 2 TIMEOUT 60 LABELS comm)

# MPI_Comm_idup is nonblocking: a chain of Ssends each rank reaches only after its Idup returns,
# 40 Idups outstanding with Ibarrier/Iallreduce between them, Idups of overlapping communicators in
# rank-dependent orders, a stalled Idup beside a blocking Comm_dup, attributes and hints carried
# over; every new communicator's context is checked distinct by crossing messages
add_mpi_test(NAME comm_idup SOURCES comm_idup.c NP 1 2 3 4 8 TIMEOUT 90 LABELS comm)

# MPI_Info_create_env before MPI_Init, after it and after MPI_Finalize: same keys and values
# (found by MPICH's info/infocreateenv: the host and thread level used to change at MPI_Init)
add_mpi_test(NAME info_env_init SOURCES info_env_init.c NP 1 3 TIMEOUT 60 LABELS comm)

# delete callbacks that delete other attributes (at delete_attr, replace, free; comm and type);
# keyvals freed while attached stay usable by get/delete_attr, double frees are harmless
# (found by MPICH's attr/attrdelete, fkeyvalcomm and keyval_double_free_*)
add_mpi_test(NAME attr_freed_keyval SOURCES attr_freed_keyval.c NP 1 2 TIMEOUT 60 LABELS comm)

# MPI_THREAD_MULTIPLE: 4 threads per rank creating communicators (dup, idup, split) on their own
# parents at once: concurrent context agreements in one process, checked by rings on each result
find_package(Threads REQUIRED)
add_mpi_test(NAME comm_threads SOURCES comm_threads.c NP 1 2 4 TIMEOUT 120 LABELS comm threads)
target_link_libraries(mpitest_comm_threads PRIVATE Threads::Threads)

# A user error code/class returned by an attribute copy/delete callback (communicator, datatype,
# window) is what the MPI call returns, not MPI_ERR_OTHER (found by MPICH's test/mpi suite).
add_mpi_test(NAME attr_callback_error_code SOURCES attr_callback_error_code.c NP 1 2 TIMEOUT 30 LABELS errors)
