#!/usr/bin/env bash
# Quick start, part 2: install what is missing, build, and run the test suite.
# By default every label but the long runs (stress, cosim-long), under 15 minutes on two
# cores; FAULTMESH_LONG_TESTS=1 adds them, at the lengths their variables give
# (docs/testing.md). Extra arguments go to ctest instead (e.g. -L unit, -R Conservation;
# the labels are unit, sim, rtl, cli, docs, stress, cosim-long, bench and slurm).
set -euo pipefail
cd "$(dirname "$0")/.."
bash sim/setup.sh
cd build
if [ $# -gt 0 ]; then
  ctest --output-on-failure -j"${JOBS:-2}" "$@"
elif [ "${FAULTMESH_LONG_TESTS:-0}" = 1 ]; then
  ctest --output-on-failure -j"${JOBS:-2}"
else
  ctest --output-on-failure -j"${JOBS:-2}" -LE 'stress|cosim-long'
fi
