#!/usr/bin/env bash
# Quick start, part 2: install what is missing, build, and run the whole test suite.
# Extra arguments go to ctest (e.g. -L unit, -R Conservation; the labels are unit, sim,
# rtl, cli, docs, stress, cosim-long, bench and slurm: README.md, "Tests").
set -euo pipefail
cd "$(dirname "$0")/.."
bash sim/setup.sh
cd build
ctest --output-on-failure -j"${JOBS:-2}" "$@"
