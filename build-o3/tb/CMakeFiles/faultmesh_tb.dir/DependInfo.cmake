
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tb/isolated.cpp" "tb/CMakeFiles/faultmesh_tb.dir/isolated.cpp.o" "gcc" "tb/CMakeFiles/faultmesh_tb.dir/isolated.cpp.o.d"
  "/work/main/tb/traffic_pattern.cpp" "tb/CMakeFiles/faultmesh_tb.dir/traffic_pattern.cpp.o" "gcc" "tb/CMakeFiles/faultmesh_tb.dir/traffic_pattern.cpp.o.d"
  "/work/main/tb/traffic_run.cpp" "tb/CMakeFiles/faultmesh_tb.dir/traffic_run.cpp.o" "gcc" "tb/CMakeFiles/faultmesh_tb.dir/traffic_run.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-o3/models/CMakeFiles/faultmesh_models.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
