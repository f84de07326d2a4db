# Error-handling tests (included by tests/mpi/CMakeLists.txt).
#
# This file is also a script: `cmake -D... -P errors.cmake` runs a job that must END IN ERROR and
# checks how it ended (used here for MPI_ERRORS_ARE_FATAL and by env.cmake for MPI_Abort):
#   CMD            the command, arguments separated by "|"
#   EXPECT_RC      the exit status the job must return, or "nonzero"
#   EXPECT_OUTPUT  a regex the output must match (the program got as far as the failing call)
#   FORBID_OUTPUT  a regex the output must not match (the failing call returned)
#   LIMIT          seconds; a job still running then counts as hung, which is a failure
# A plain WILL_FAIL test would also pass on a crash before the call, or on a hang killed by the
# launcher's timeout; this wrapper doesn't.
if(CMAKE_SCRIPT_MODE_FILE)
  string(REPLACE "|" ";" cmd "${CMD}")
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out
                  TIMEOUT ${LIMIT})
  message("${out}")
  if(NOT rc MATCHES "^-?[0-9]+$")
    message(FATAL_ERROR "FAIL: the job did not exit normally: ${rc}")
  endif()
  if(EXPECT_RC STREQUAL "nonzero")
    if(rc EQUAL 0)
      message(FATAL_ERROR "FAIL: the job exited with status 0, expected non-zero")
    endif()
  elseif(NOT rc EQUAL EXPECT_RC)
    message(FATAL_ERROR "FAIL: the job exited with status ${rc}, expected ${EXPECT_RC}")
  endif()
  if(EXPECT_OUTPUT AND NOT out MATCHES "${EXPECT_OUTPUT}")
    message(FATAL_ERROR "FAIL: output does not match '${EXPECT_OUTPUT}'")
  endif()
  if(FORBID_OUTPUT AND out MATCHES "${FORBID_OUTPUT}")
    message(FATAL_ERROR "FAIL: output matches '${FORBID_OUTPUT}'")
  endif()
  message("PASS: exit status ${rc}")
  return()
endif()

# MPI_ERRORS_RETURN: every erroneous call returns the right error class, the library keeps working;
# error strings; user error handlers
add_mpi_test(NAME errors_return SOURCES errors_return.c NP 1 2 3 4 8 TIMEOUT 60 LABELS errors)

# MPI_ERRORS_ARE_FATAL ends the job with a non-zero status (through the wrapper above)
add_mpi_test(NAME errors_fatal SOURCES errors_fatal.c) # builds the program; tests below
foreach(np 1 2 4)
  add_test(NAME errors_fatal.np${np}
           COMMAND ${CMAKE_COMMAND}
                   "-DCMD=${CMAKE_BINARY_DIR}/bin/mpiexec|-n|${np}|--timeout|25|$<TARGET_FILE:mpitest_errors_fatal>"
                   -DEXPECT_RC=nonzero
                   "-DEXPECT_OUTPUT=calling MPI_Send with invalid rank"
                   -DFORBID_OUTPUT=NOT-REACHED
                   -DLIMIT=30
                   -P ${CMAKE_CURRENT_LIST_DIR}/errors.cmake)
  set_tests_properties(errors_fatal.np${np} PROPERTIES TIMEOUT 40 LABELS "mpi;errors" PROCESSORS 1)
endforeach()

# NULL output pointers (Comm_size/rank, Type_size*, Get_count/elements, Test*/Wait*any/some,
# Iprobe/Improbe/Mprobe, Request_get_status, version/thread queries, ...) give MPI_ERR_ARG, not a
# crash (found by MPICH's test/mpi suite).
add_mpi_test(NAME errors_null_args SOURCES errors_null_args.c NP 1 2 TIMEOUT 30 LABELS errors)
