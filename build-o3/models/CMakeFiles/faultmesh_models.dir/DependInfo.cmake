
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/models/config.cpp" "models/CMakeFiles/faultmesh_models.dir/config.cpp.o" "gcc" "models/CMakeFiles/faultmesh_models.dir/config.cpp.o.d"
  "/work/main/models/network.cpp" "models/CMakeFiles/faultmesh_models.dir/network.cpp.o" "gcc" "models/CMakeFiles/faultmesh_models.dir/network.cpp.o.d"
  "/work/main/models/ni.cpp" "models/CMakeFiles/faultmesh_models.dir/ni.cpp.o" "gcc" "models/CMakeFiles/faultmesh_models.dir/ni.cpp.o.d"
  "/work/main/models/route_table.cpp" "models/CMakeFiles/faultmesh_models.dir/route_table.cpp.o" "gcc" "models/CMakeFiles/faultmesh_models.dir/route_table.cpp.o.d"
  "/work/main/models/router.cpp" "models/CMakeFiles/faultmesh_models.dir/router.cpp.o" "gcc" "models/CMakeFiles/faultmesh_models.dir/router.cpp.o.d"
  "/work/main/models/topology.cpp" "models/CMakeFiles/faultmesh_models.dir/topology.cpp.o" "gcc" "models/CMakeFiles/faultmesh_models.dir/topology.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
