
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/sim/bench.cpp" "sim/CMakeFiles/faultmesh_cli.dir/bench.cpp.o" "gcc" "sim/CMakeFiles/faultmesh_cli.dir/bench.cpp.o.d"
  "/work/main/sim/cli.cpp" "sim/CMakeFiles/faultmesh_cli.dir/cli.cpp.o" "gcc" "sim/CMakeFiles/faultmesh_cli.dir/cli.cpp.o.d"
  "/work/main/sim/latency_sweep.cpp" "sim/CMakeFiles/faultmesh_cli.dir/latency_sweep.cpp.o" "gcc" "sim/CMakeFiles/faultmesh_cli.dir/latency_sweep.cpp.o.d"
  "/work/main/sim/options.cpp" "sim/CMakeFiles/faultmesh_cli.dir/options.cpp.o" "gcc" "sim/CMakeFiles/faultmesh_cli.dir/options.cpp.o.d"
  "/work/main/sim/report.cpp" "sim/CMakeFiles/faultmesh_cli.dir/report.cpp.o" "gcc" "sim/CMakeFiles/faultmesh_cli.dir/report.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-o3/tb/CMakeFiles/faultmesh_tb.dir/DependInfo.cmake"
  "/work/main/build-o3/models/CMakeFiles/faultmesh_models.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
