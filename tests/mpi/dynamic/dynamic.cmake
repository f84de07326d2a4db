# Dynamic processes (MPI-4.1 11.8-11.10; docs/dynamic.md): spawn, ports, names, join.
# Processes of different launches talk through UCX: without it every connection is refused
# (MPI_ERR_UNSUPPORTED_OPERATION), so these tests exist only in builds with UCX.
get_property(dynamic_have_ucx GLOBAL PROPERTY BATON_HAVE_UCX)
if(NOT dynamic_have_ucx)
  message(STATUS "Baton: no UCX in this build: the dynamic-process tests are left out")
  return()
endif()
add_mpi_test(NAME dynamic_spawn1 SOURCES dynamic_spawn.c NP 1 2 4 ARGS 1 TIMEOUT 60 LABELS dynamic)
add_mpi_test(NAME dynamic_spawn4 SOURCES dynamic_spawn.c NP 1 2 ARGS 4 TIMEOUT 60 LABELS dynamic)
add_mpi_test(NAME dynamic_spawn_grand SOURCES dynamic_spawn.c NP 2 ARGS 2 grand TIMEOUT 60 LABELS dynamic)
# mpiexec's universe: --universe-size, and a hostfile's slots (every host this one); a hostfile
# naming another host is a usage error (exit 2) with a message saying why.
add_test(NAME dynamic_spawn_usize
         COMMAND ${CMAKE_BINARY_DIR}/bin/mpiexec --universe-size 7 -n 2 --timeout 60
                 $<TARGET_FILE:mpitest_dynamic_spawn1> 1)
set_tests_properties(dynamic_spawn_usize PROPERTIES TIMEOUT 75 LABELS "mpi;dynamic" PROCESSORS 1
                     ENVIRONMENT DYNAMIC_TEST_USIZE=7)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/dynamic_hosts "# this host only\nlocalhost:3\n127.0.0.1 slots=2\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/dynamic_hosts_other "localhost:2\nbaton-other-host.invalid:2\n")
add_test(NAME dynamic_spawn_hostfile
         COMMAND ${CMAKE_BINARY_DIR}/bin/mpiexec --hostfile ${CMAKE_CURRENT_BINARY_DIR}/dynamic_hosts -n 1
                 --timeout 60 $<TARGET_FILE:mpitest_dynamic_spawn1> 2)
set_tests_properties(dynamic_spawn_hostfile PROPERTIES TIMEOUT 75 LABELS "mpi;dynamic" PROCESSORS 1
                     ENVIRONMENT DYNAMIC_TEST_USIZE=5)
add_test(NAME dynamic_hostfile_other_host
         COMMAND sh ${PROJECT_SOURCE_DIR}/tools/mpiexec/test/check.sh --rc 2
                 --err "names host 'baton-other-host.invalid'"
                 -- ${CMAKE_BINARY_DIR}/bin/mpiexec --hostfile ${CMAKE_CURRENT_BINARY_DIR}/dynamic_hosts_other -n 1 true)
set_tests_properties(dynamic_hostfile_other_host PROPERTIES TIMEOUT 30 LABELS "mpi;dynamic" PROCESSORS 1)

# Programs that two_launches.sh starts as two separate jobs (not through add_mpi_test).
function(dynamic_program name)
  add_executable(mpitest_${name} ${ARGN})
  target_link_libraries(mpitest_${name} PRIVATE mpi_abi)
  set_target_properties(mpitest_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/mpi)
endfunction()
dynamic_program(dynamic_connect ${CMAKE_CURRENT_LIST_DIR}/dynamic_connect.c)
set(dynamic_two ${CMAKE_CURRENT_LIST_DIR}/two_launches.sh ${CMAKE_BINARY_DIR}/bin/mpiexec)
foreach(np 1 2)
  add_test(NAME dynamic_connect_file.np${np}
           COMMAND ${dynamic_two} $<TARGET_FILE:mpitest_dynamic_connect> ${np} 2 file)
  set_tests_properties(dynamic_connect_file.np${np} PROPERTIES TIMEOUT 60 LABELS "mpi;dynamic" PROCESSORS 1)
endforeach()
add_test(NAME dynamic_connect_names.np2
         COMMAND ${dynamic_two} $<TARGET_FILE:mpitest_dynamic_connect> 2 1 names $<TARGET_FILE:baton-nameserver>)
set_tests_properties(dynamic_connect_names.np2 PROPERTIES TIMEOUT 60 LABELS "mpi;dynamic" PROCESSORS 1)
add_mpi_test(NAME dynamic_names_ports SOURCES dynamic_names_ports.c NP 2 TIMEOUT 60 LABELS dynamic)
add_mpi_test(NAME dynamic_join SOURCES dynamic_join.c NP 2 TIMEOUT 60 LABELS dynamic)
dynamic_program(dynamic_worker ${CMAKE_CURRENT_LIST_DIR}/dynamic_worker.c)
add_mpi_test(NAME dynamic_spawn_multiple SOURCES dynamic_spawn_multiple.c NP 1 2 TIMEOUT 60 LABELS dynamic
             ARGS $<TARGET_FILE:mpitest_dynamic_worker>)
add_dependencies(mpitest_dynamic_spawn_multiple mpitest_dynamic_worker)
add_mpi_test(NAME dynamic_spawn_errors SOURCES dynamic_spawn_errors.c NP 1 2 TIMEOUT 60 LABELS dynamic)
dynamic_program(dynamic_no_launcher ${CMAKE_CURRENT_LIST_DIR}/dynamic_no_launcher.c)
add_test(NAME dynamic_no_launcher
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/no_launcher.sh $<TARGET_FILE:mpitest_dynamic_no_launcher>)
set_tests_properties(dynamic_no_launcher PROPERTIES TIMEOUT 60 LABELS "mpi;dynamic" PROCESSORS 1 SKIP_RETURN_CODE 77)
dynamic_program(dynamic_fault ${CMAKE_CURRENT_LIST_DIR}/dynamic_fault.c)
foreach(mode crash-child parent-exits peer-dies)
  add_test(NAME dynamic_fault_${mode}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/fault.sh ${CMAKE_BINARY_DIR}/bin/mpiexec
                   $<TARGET_FILE:mpitest_dynamic_fault> ${mode})
  set_tests_properties(dynamic_fault_${mode} PROPERTIES TIMEOUT 60 LABELS "mpi;dynamic" PROCESSORS 2)
endforeach()
add_mpi_test(NAME dynamic_spawn_threads SOURCES dynamic_spawn_threads.c NP 1 2 TIMEOUT 60 LABELS dynamic)
target_link_libraries(mpitest_dynamic_spawn_threads PRIVATE Threads::Threads)

# Across the two simulated hosts (tests/twohost, ../shared/tools/twohost): spawn under Hydra
# (PMI-1 and PMI-2) and Open MPI's mpirun (PMIx), one parent per host; connect/accept between two
# of our mpiexec launches, one per host. They skip (77) where namespaces can't be made.
set(dynamic_twohost ${CMAKE_CURRENT_LIST_DIR}/twohost_dynamic.sh)
foreach(l hydra hydra2 ompi)
  add_test(NAME twohost.${l}.dynamic_spawn
           COMMAND ${dynamic_twohost} spawn ${l} 60 $<TARGET_FILE:mpitest_dynamic_spawn1> 2)
  set_tests_properties(twohost.${l}.dynamic_spawn PROPERTIES TIMEOUT 90 LABELS "twohost;dynamic" PROCESSORS 2
                       SKIP_RETURN_CODE 77 RESOURCE_LOCK twohost)
endforeach()
add_test(NAME twohost.mpiexec.dynamic_connect
         COMMAND ${dynamic_twohost} connect ${CMAKE_BINARY_DIR}/bin/mpiexec 60 $<TARGET_FILE:mpitest_dynamic_connect>)
set_tests_properties(twohost.mpiexec.dynamic_connect PROPERTIES TIMEOUT 90 LABELS "twohost;dynamic" PROCESSORS 2
                     SKIP_RETURN_CODE 77 RESOURCE_LOCK twohost)
