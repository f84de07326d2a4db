# The collective algorithm test matrix (included by tests/mpi/CMakeLists.txt), generated from the
# registry: every BATON_ALGORITHM line of src/coll/algorithms.def becomes one test,
# coll_alg_<collective>_<name>, run with BATON_<COLLECTIVE>_ALGORITHM=<name> at 1-8 ranks, so a
# new algorithm is tested by adding its registry line. A collective is tested by the program
# listed for it below; collectives with no program here are registered by their own .cmake file.
get_filename_component(BATON_ALGORITHMS_DEF ${CMAKE_CURRENT_LIST_DIR}/../../../src/coll/algorithms.def ABSOLUTE)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${BATON_ALGORITHMS_DEF})

# collective -> test program
set(BATON_COLL_TEST_barrier coll_algorithms.c)
set(BATON_COLL_TEST_bcast coll_algorithms.c)
set(BATON_COLL_TEST_reduce coll_algorithms.c)
set(BATON_COLL_TEST_allreduce coll_algorithms.c)

# The default selection (thresholds included) with no override.
add_mpi_test(NAME coll_algorithms SOURCES coll_algorithms.c NP 1 2 3 4 5 8 TIMEOUT 120 LABELS coll)

file(STRINGS ${BATON_ALGORITHMS_DEF} baton_alg_lines REGEX "^[ \t]*BATON_ALGORITHM[ \t]*\\(")
foreach(line IN LISTS baton_alg_lines)
  if(NOT line MATCHES "BATON_ALGORITHM[ \t]*\\([ \t]*([a-z_]+)[ \t]*,[ \t]*([a-z0-9_]+)[ \t]*,")
    message(FATAL_ERROR "coll/algorithms.cmake: cannot parse registry line: ${line}")
  endif()
  set(coll ${CMAKE_MATCH_1})
  set(alg ${CMAKE_MATCH_2})
  if(NOT DEFINED BATON_COLL_TEST_${coll})
    continue()  # tested by that collective's own test list
  endif()
  string(TOUPPER ${coll} coll_upper)
  # The program of the test named after the source (coll_algorithms above) is built once.
  get_filename_component(prog ${BATON_COLL_TEST_${coll}} NAME_WE)
  if(TARGET mpitest_${prog})
    set(what PROGRAM ${prog})
  else()
    set(what SOURCES ${BATON_COLL_TEST_${coll}})
  endif()
  add_mpi_test(NAME coll_alg_${coll}_${alg} ${what} NP 1 2 3 4 5 8 TIMEOUT 120
               LABELS coll coll_alg ENV BATON_${coll_upper}_ALGORITHM=${alg})
endforeach()
