
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/cli_test.cpp" "tests/CMakeFiles/faultmesh_tests.dir/cli_test.cpp.o" "gcc" "tests/CMakeFiles/faultmesh_tests.dir/cli_test.cpp.o.d"
  "/work/main/tests/main.cpp" "tests/CMakeFiles/faultmesh_tests.dir/main.cpp.o" "gcc" "tests/CMakeFiles/faultmesh_tests.dir/main.cpp.o.d"
  "/work/main/tests/monitor_test.cpp" "tests/CMakeFiles/faultmesh_tests.dir/monitor_test.cpp.o" "gcc" "tests/CMakeFiles/faultmesh_tests.dir/monitor_test.cpp.o.d"
  "/work/main/tests/routing_test.cpp" "tests/CMakeFiles/faultmesh_tests.dir/routing_test.cpp.o" "gcc" "tests/CMakeFiles/faultmesh_tests.dir/routing_test.cpp.o.d"
  "/work/main/tests/topology_test.cpp" "tests/CMakeFiles/faultmesh_tests.dir/topology_test.cpp.o" "gcc" "tests/CMakeFiles/faultmesh_tests.dir/topology_test.cpp.o.d"
  "/work/main/tests/traffic_test.cpp" "tests/CMakeFiles/faultmesh_tests.dir/traffic_test.cpp.o" "gcc" "tests/CMakeFiles/faultmesh_tests.dir/traffic_test.cpp.o.d"
  "/work/main/tests/zero_load_test.cpp" "tests/CMakeFiles/faultmesh_tests.dir/zero_load_test.cpp.o" "gcc" "tests/CMakeFiles/faultmesh_tests.dir/zero_load_test.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-o3/sim/CMakeFiles/faultmesh_cli.dir/DependInfo.cmake"
  "/work/main/build-o3/tb/CMakeFiles/faultmesh_tb.dir/DependInfo.cmake"
  "/work/main/build-o3/models/CMakeFiles/faultmesh_models.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
