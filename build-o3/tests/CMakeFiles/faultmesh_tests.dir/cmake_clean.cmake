file(REMOVE_RECURSE
  "CMakeFiles/faultmesh_tests.dir/cli_test.cpp.o"
  "CMakeFiles/faultmesh_tests.dir/cli_test.cpp.o.d"
  "CMakeFiles/faultmesh_tests.dir/main.cpp.o"
  "CMakeFiles/faultmesh_tests.dir/main.cpp.o.d"
  "CMakeFiles/faultmesh_tests.dir/monitor_test.cpp.o"
  "CMakeFiles/faultmesh_tests.dir/monitor_test.cpp.o.d"
  "CMakeFiles/faultmesh_tests.dir/routing_test.cpp.o"
  "CMakeFiles/faultmesh_tests.dir/routing_test.cpp.o.d"
  "CMakeFiles/faultmesh_tests.dir/topology_test.cpp.o"
  "CMakeFiles/faultmesh_tests.dir/topology_test.cpp.o.d"
  "CMakeFiles/faultmesh_tests.dir/traffic_test.cpp.o"
  "CMakeFiles/faultmesh_tests.dir/traffic_test.cpp.o.d"
  "CMakeFiles/faultmesh_tests.dir/zero_load_test.cpp.o"
  "CMakeFiles/faultmesh_tests.dir/zero_load_test.cpp.o.d"
  "faultmesh_tests"
  "faultmesh_tests.pdb"
  "faultmesh_tests[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/faultmesh_tests.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
