# Miscellaneous MPI functions (included by tests/mpi/CMakeLists.txt).

# MPI_Alloc_mem/MPI_Free_mem (alignment, the alignment info key, use as a message buffer, MPI_ERR_BASE,
# out of memory through MPI_COMM_WORLD's handler), MPI_Pcontrol, the MPI-5.0 status accessors on a
# received status, user error classes/codes/strings with MPI_Error_class/_string, MPI_LASTUSEDCODE
# and the removal rules, user codes through an error handler, MPI_Abi_get_info, the Fortran ABI
# info and booleans (with LAND/LOR/LXOR on MPI_LOGICAL after .TRUE. = -1)
add_mpi_test(NAME misc_api SOURCES misc_api.c NP 1 2 4 TIMEOUT 60 LABELS env)
