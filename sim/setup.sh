#!/usr/bin/env bash
# Shared set-up for run_demo.sh, run_tests.sh and run_sanitized_tests.sh: installs the
# Debian 12 packages the build needs (only those missing), then configures and builds
# into build/. Optional arguments: another build directory, then extra CMake arguments
# (run_sanitized_tests.sh: build-asan -DFAULTMESH_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."

# gnuplot-nox draws `faultmesh plot` figures; munge + slurmctld + slurmd + slurm-client
# (slurm-wlm 22.05) run the real-Slurm test (tests/sim/slurm/). Installing them starts no
# Slurm daemon (their systemd units and init scripts need /etc/slurm/slurm.conf, which
# no package writes); the system munge service may start, which the test does not use
# (it runs its own munged with its own key and socket, and its own ports).
# zlib1g-dev: the FST waveform writer (Verilator's gtkwave/fstapi.c) needs zlib.
# gtkwave: the viewer the waveform save files are for, and its fst2vcd, with which a
# test reads our FST files back.
# chromium: the headless browser the `faultmesh view` page test renders the page in.
PKGS=(build-essential cmake pkg-config libsystemc-dev verilator libgtest-dev
      libboost-program-options-dev nlohmann-json3-dev zlib1g-dev gnuplot-nox gtkwave
      chromium munge slurmctld slurmd slurm-client)
source sim/install_packages.sh
install_packages setup "${PKGS[@]}"

build_dir=${1:-build}
(($#)) && shift
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@" >/dev/null
cmake --build "$build_dir" -j"${JOBS:-2}"
