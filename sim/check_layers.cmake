# The folders are the layers (docs/architecture.md, "Layers"); a file may include only
# its own layer and the ones below it:
#
#   tb/util/        subprocesses, parsers, the job pool, JSON/CSV helpers  (nothing above)
#   models/         the SystemC model                                     (models/)
#   tb/             testbenches, system assembly, results                 (models/, tb/)
#   sim/            what the commands share, and the dispatcher           (models/, tb/, sim/*)
#   sim/commands/   one file per command                                  (... sim/*, sim/commands/)
#   sim/report/     `report paper`                                        (... sim/*, sim/report/)
#   tests/          anything
#
# sim/* is a file of sim/ itself: the commands and the report are siblings that do not
# include each other, and sim/ includes neither (sim/cli.h declares every command).
# Run on every build (the `layers` target of the top-level CMakeLists.txt): a file that
# includes a higher layer fails the build, naming the file, the line and the rule.
# Usage: cmake -DROOT=<source dir> -P sim/check_layers.cmake
if(NOT ROOT)
  message(FATAL_ERROR "check_layers.cmake: pass -DROOT=<source dir>")
endif()

# layer folder -> the include prefixes it may use (quoted includes "top/..." only; other
# quoted includes, e.g. the verilated "Vfm_router.h", are not project folders).
set(allowed_tb_util "tb/util/")
set(allowed_models "models/")
set(allowed_tb "models/;tb/")
set(allowed_sim "models/;tb/;sim/*")
set(allowed_sim_commands "models/;tb/;sim/*;sim/commands/")
set(allowed_sim_report "models/;tb/;sim/*;sim/report/")

set(violations "")
foreach(layer tb_util models tb sim sim_commands sim_report)
  string(REPLACE "_" "/" dir "${layer}")
  file(GLOB_RECURSE files "${ROOT}/${dir}/*.h" "${ROOT}/${dir}/*.cpp" "${ROOT}/${dir}/*.cc" "${ROOT}/${dir}/*.in")
  foreach(f ${files})
    file(RELATIVE_PATH rel "${ROOT}" "${f}")
    # tb/util/ is its own, lower layer: not checked as tb/.
    if(layer STREQUAL "tb" AND rel MATCHES "^tb/util/")
      continue()
    endif()
    # sim/commands/ and sim/report/ are their own layers: not checked as sim/.
    if(layer STREQUAL "sim" AND rel MATCHES "^sim/(commands|report)/")
      continue()
    endif()
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"(models|tb|sim|tests|rtl)/")
    foreach(line ${lines})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
      set(ok FALSE)
      foreach(prefix ${allowed_${layer}})
        if(prefix STREQUAL "sim/*")
          # a file of sim/ itself, not of a folder under it
          if(inc MATCHES "^sim/[^/]+$")
            set(ok TRUE)
          endif()
        else()
          string(FIND "${inc}" "${prefix}" at)
          if(at EQUAL 0)
            set(ok TRUE)
          endif()
        endif()
      endforeach()
      if(NOT ok)
        string(APPEND violations "  ${rel}: #include \"${inc}\" (${dir}/ may include only: ${allowed_${layer}})\n")
      endif()
    endforeach()
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "a lower layer includes a higher one (sim/check_layers.cmake):\n${violations}")
endif()
