file(REMOVE_RECURSE
  "CMakeFiles/faultmesh_cli.dir/bench.cpp.o"
  "CMakeFiles/faultmesh_cli.dir/bench.cpp.o.d"
  "CMakeFiles/faultmesh_cli.dir/cli.cpp.o"
  "CMakeFiles/faultmesh_cli.dir/cli.cpp.o.d"
  "CMakeFiles/faultmesh_cli.dir/latency_sweep.cpp.o"
  "CMakeFiles/faultmesh_cli.dir/latency_sweep.cpp.o.d"
  "CMakeFiles/faultmesh_cli.dir/options.cpp.o"
  "CMakeFiles/faultmesh_cli.dir/options.cpp.o.d"
  "CMakeFiles/faultmesh_cli.dir/report.cpp.o"
  "CMakeFiles/faultmesh_cli.dir/report.cpp.o.d"
  "libfaultmesh_cli.a"
  "libfaultmesh_cli.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/faultmesh_cli.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
