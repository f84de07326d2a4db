# Datatype and reduction-op test programs (included by tests/mpi/CMakeLists.txt). Each checks
# locally, agrees on PASS/FAIL at the end with point-to-point only (mpitest.h) and exits non-zero
# on failure.

# every constructor (int and _c forms) against a hand-computed type map: size, extents, the bytes
# MPI_Pack writes and MPI_Unpack restores, rebuilt from envelope/contents; names, match_size,
# value_index, addresses, Pack/Unpack, external32 byte order; error classes (free of a predefined
# type, freed and made-up handles, uncommitted types, negative counts, truncation)
add_mpi_test(NAME datatype_constructors SOURCES datatype_constructors.c NP 1 2 TIMEOUT 60 LABELS datatype)

# vector/indexed/struct/subarray messages around a ring and to self, eager and 1.5 MB, received
# typed, as MPI_PACKED and as contiguous basic elements; types freed between Isend/Irecv and the
# wait, and between Send_init/Recv_init and two Startall rounds; Get_count/Get_elements on
# messages that end inside a receive element
add_mpi_test(NAME datatype_comm SOURCES datatype_comm.c NP 1 2 3 4 TIMEOUT 60 LABELS datatype)

# MPI_Reduce_local with every predefined op class on predefined, strided and padded-pair derived
# types; user ops (commutative or not, int and _c forms, operand order, datatype handle and count
# they receive), a user op freed right after use; Op_commutative; MPI_ERR_OP/TYPE/COUNT cases
add_mpi_test(NAME op_reduce_local SOURCES op_reduce_local.c NP 1 TIMEOUT 60 LABELS datatype op)

# MPI_THREAD_MULTIPLE: 4 threads per rank creating, querying, using and freeing datatypes and user
# ops at once (handle registries, reference counts of types freed under a pending send)
find_package(Threads REQUIRED)
add_mpi_test(NAME datatype_threads SOURCES datatype_threads.c NP 1 2 TIMEOUT 60 LABELS datatype threads)
target_link_libraries(mpitest_datatype_threads PRIVATE Threads::Threads)

# datatype attributes (copy at Type_dup, delete at replace / delete_attr / the last Type_free,
# predefined types, failing callbacks, keyval kinds); MPI_Type_create_f90_real/complex/integer
# (sizes, envelope/contents, one handle per arguments, not freeable, Allreduce and Send with them)
# and MPI_Type_match_size
add_mpi_test(NAME datatype_attrs_f90 SOURCES datatype_attrs_f90.c NP 1 2 TIMEOUT 60 LABELS datatype)

# MPI_Status_set_elements(_c/_x) count basic elements: Get_count / Get_elements agree for
# derived, struct, pair and > 2 GiB types (found by MPICH's datatype/large_count)
add_mpi_test(NAME datatype_status_elements SOURCES datatype_status_elements.c NP 1 TIMEOUT 60 LABELS datatype)

# MPI_Reduce_local: MPI_IN_PLACE (either buffer) and aliased buffers give MPI_ERR_BUFFER
# (MPI_IN_PLACE as inbuf used to crash; found by MPICH's test/mpi suite).
add_mpi_test(NAME op_reduce_local_buffers SOURCES op_reduce_local_buffers.c NP 1 TIMEOUT 30 LABELS errors)
