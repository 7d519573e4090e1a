file(REMOVE_RECURSE
  "CMakeFiles/faultmesh_tb.dir/isolated.cpp.o"
  "CMakeFiles/faultmesh_tb.dir/isolated.cpp.o.d"
  "CMakeFiles/faultmesh_tb.dir/traffic_pattern.cpp.o"
  "CMakeFiles/faultmesh_tb.dir/traffic_pattern.cpp.o.d"
  "CMakeFiles/faultmesh_tb.dir/traffic_run.cpp.o"
  "CMakeFiles/faultmesh_tb.dir/traffic_run.cpp.o.d"
  "libfaultmesh_tb.a"
  "libfaultmesh_tb.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/faultmesh_tb.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
