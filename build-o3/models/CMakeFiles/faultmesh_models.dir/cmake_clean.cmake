file(REMOVE_RECURSE
  "CMakeFiles/faultmesh_models.dir/config.cpp.o"
  "CMakeFiles/faultmesh_models.dir/config.cpp.o.d"
  "CMakeFiles/faultmesh_models.dir/network.cpp.o"
  "CMakeFiles/faultmesh_models.dir/network.cpp.o.d"
  "CMakeFiles/faultmesh_models.dir/ni.cpp.o"
  "CMakeFiles/faultmesh_models.dir/ni.cpp.o.d"
  "CMakeFiles/faultmesh_models.dir/route_table.cpp.o"
  "CMakeFiles/faultmesh_models.dir/route_table.cpp.o.d"
  "CMakeFiles/faultmesh_models.dir/router.cpp.o"
  "CMakeFiles/faultmesh_models.dir/router.cpp.o.d"
  "CMakeFiles/faultmesh_models.dir/topology.cpp.o"
  "CMakeFiles/faultmesh_models.dir/topology.cpp.o.d"
  "libfaultmesh_models.a"
  "libfaultmesh_models.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/faultmesh_models.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
