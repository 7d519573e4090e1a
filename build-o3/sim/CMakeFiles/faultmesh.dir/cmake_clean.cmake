file(REMOVE_RECURSE
  "CMakeFiles/faultmesh.dir/main.cpp.o"
  "CMakeFiles/faultmesh.dir/main.cpp.o.d"
  "faultmesh"
  "faultmesh.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/faultmesh.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
