# MPI-5.0 ABI handle conversion and the binding generated from tools/api/mpi_api.txt
# (included by tests/mpi/CMakeLists.txt).

# MPI_<Handle>_toint / _fromint for every kind: predefined and null handles keep their ABI value,
# user handles round-trip to distinct integers and work through the converted-back handles
add_mpi_test(NAME abi_handles SOURCES abi_handles.c NP 1 2 4 TIMEOUT 60 LABELS comm datatype)

# The generated NULL-pointer checks of the datatype and reduction-op functions: MPI_ERR_ARG through
# the error handler instead of a write through NULL, and the library keeps working
add_mpi_test(NAME abi_generated_checks SOURCES generated_checks.c NP 1 2 TIMEOUT 60 LABELS datatype abi)

# The generated init check: MPI_Type_size after MPI_Finalize ends the job naming the call (through
# tests/mpi/errors/errors.cmake, which checks how a job that must fail ended)
add_mpi_test(NAME abi_after_finalize SOURCES after_finalize.c) # builds the program; tests below
foreach(np 1 2)
  add_test(NAME abi_after_finalize.np${np}
           COMMAND ${CMAKE_COMMAND}
                   "-DCMD=${CMAKE_BINARY_DIR}/bin/mpiexec|-n|${np}|--timeout|25|$<TARGET_FILE:mpitest_abi_after_finalize>"
                   -DEXPECT_RC=nonzero
                   "-DEXPECT_OUTPUT=MPI_Type_size failed"
                   -DFORBID_OUTPUT=NOT-REACHED
                   -DLIMIT=30
                   -P ${CMAKE_CURRENT_LIST_DIR}/../errors/errors.cmake)
  set_tests_properties(abi_after_finalize.np${np} PROPERTIES TIMEOUT 40 LABELS "mpi;abi" PROCESSORS 1)
endforeach()

# mpi_fortran.h: MPI_Fint, MPI_<Handle>_c2f/_f2c over _toint/_fromint, MPI_Status_c2f/_f2c
add_mpi_test(NAME abi_fortran_handles SOURCES fortran_handles.c NP 1 2 TIMEOUT 60 LABELS abi comm)
