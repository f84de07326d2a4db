# The Fortran bindings (fortran/, docs/fortran.md): the same checks in each of the three bindings
# (mpi_f08, mpi, mpif.h). Registered only when libmpifort_abi is built (gfortran found).
if(NOT TARGET mpifort_abi)
  return()
endif()

# add_mpi_fortran_test(NAME <name> SOURCES <files...> NP ... [TIMEOUT s] [LABELS ...]): builds
# mpitest_<name> from Fortran sources against libmpifort_abi, then registers it as add_mpi_test
# does (which finds the program already built).
function(add_mpi_fortran_test)
  cmake_parse_arguments(F "" "NAME;TIMEOUT" "SOURCES;NP;LABELS" ${ARGN})
  set(srcs "")
  foreach(s IN LISTS F_SOURCES)
    list(APPEND srcs "${CMAKE_CURRENT_LIST_DIR}/${s}")
  endforeach()
  add_executable(mpitest_${F_NAME} ${srcs})
  target_link_libraries(mpitest_${F_NAME} PRIVATE mpifort_abi)
  # The checks compare small integers held in REAL(8) exactly, on purpose;
  # mpif.h declares every constant: those a program does not use are unused parameters.
  target_compile_options(mpitest_${F_NAME} PRIVATE -Wno-compare-reals -Wno-unused-parameter)
  set_target_properties(mpitest_${F_NAME} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/mpi
    Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fortran_modules/${F_NAME})
  if(F_NAME MATCHES "_mpif_")
    # Without explicit interfaces gfortran (10 and later) refuses one procedure called with
    # buffers of different types in one file unless told otherwise (mpifort adds this flag too);
    # the mismatches it then reports are what mpif.h programs do, not for BATON_WERROR.
    target_compile_options(mpitest_${F_NAME} PRIVATE -fallow-argument-mismatch -Wno-error)
  endif()
  add_mpi_test(NAME ${F_NAME} SOURCES ${F_SOURCES} NP ${F_NP} TIMEOUT ${F_TIMEOUT} LABELS ${F_LABELS})
endfunction()

foreach(binding f08 mpi mpif)
  if(binding STREQUAL "mpif")
    set(ext f)
  else()
    set(ext f90)
  endif()
  add_mpi_fortran_test(NAME fortran_${binding}_ring SOURCES ${binding}_ring.${ext} check.f90 NP 1 2 4 TIMEOUT 60 LABELS fortran)
  add_mpi_fortran_test(NAME fortran_${binding}_coll SOURCES ${binding}_coll.${ext} check.f90 NP 1 2 4 TIMEOUT 60 LABELS fortran)
  add_mpi_fortran_test(NAME fortran_${binding}_errors SOURCES ${binding}_errors.${ext} check.f90 NP 1 2 TIMEOUT 60 LABELS fortran)
endforeach()

# Example 13.1 (queued ring) with the mpi_f08 queue bindings.
add_mpi_fortran_test(NAME fortran_f08_queue_ring SOURCES f08_queue_ring.f90 NP 1 2 4 TIMEOUT 60 LABELS fortran queue)

# What MPICH's test/mpi/f08 run found (docs/fortran.md): indices, info strings, file handles,
# PMPI_ names, C_PTR overloads.
add_mpi_fortran_test(NAME fortran_f08_misc SOURCES f08_misc.f90 check.f90 NP 1 2 TIMEOUT 60 LABELS fortran)
add_mpi_fortran_test(NAME fortran_mpi_misc SOURCES mpi_misc.f90 check.f90 NP 1 2 TIMEOUT 60 LABELS fortran)
add_mpi_fortran_test(NAME fortran_f08_datarep SOURCES f08_datarep.f90 check.f90 NP 1 2 TIMEOUT 60 LABELS fortran)
