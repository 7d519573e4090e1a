#!/usr/bin/env bash
# The clock kernel's tests under ThreadSanitizer (docs/performance.md, "ThreadSanitizer"):
# installs what is missing, configures build-tsan/ with -DFAULTMESH_TSAN=ON (g++, every
# source of ours instrumented; the SystemC library and libstdc++ as Debian ships them),
# builds only faultmesh_kernel_tests (tests/noc/clock_test.cpp, tests/noc/kernel_threads_test.cpp)
# and runs it: 8x8 meshes and tori, with and without faults, at 1, 2 and 3 threads, every
# cycle on the workers. Any ThreadSanitizer report fails the script, as does a failed test.
# Extra arguments go to the test binary (e.g. --gtest_filter='*torus*' or
# --gtest_repeat=5). JOBS sets build parallelism (default 2).
#
# Only networks of routers and NIs driven by the clock run here, never an SC_THREAD (the
# allreduce host, the fault controller, co-simulation benches): SystemC switches between
# its coroutines' stacks without telling ThreadSanitizer, which then keeps one call stack
# for all of them (docs/performance.md says more).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

# What the configure step needs (sim/setup.sh's list without the run-time tools the
# kernel tests do not use); libtsan2 is GCC 12's ThreadSanitizer runtime (build-essential
# brings it on Debian 12; named so that nothing relies on that).
PKGS=(build-essential cmake pkg-config libsystemc-dev verilator libgtest-dev
      libboost-program-options-dev nlohmann-json3-dev zlib1g-dev libtsan2)
source sim/install_packages.sh
install_packages run_tsan "${PKGS[@]}"

CC=gcc CXX=g++ cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFAULTMESH_TSAN=ON >/dev/null
cmake --build build-tsan -j"${JOBS:-2}" --target faultmesh_kernel_tests

# Every report goes to a file under $log_dir (tsan.<pid>): each simulation runs in a
# forked child, and any file there fails this script even if the test that forked it
# passed. halt_on_error=1: the first report ends the process (exit code 66, so the test
# fails as well). second_deadlock_stack=1: both stacks of a lock-order inversion. No
# suppressions: no report has needed one.
log_dir=$PWD/build-tsan/tsan-logs
rm -rf "$log_dir"
mkdir -p "$log_dir"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:log_path=$log_dir/tsan"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

# GCC 12's ThreadSanitizer expects at most 28 bits of mmap randomisation (Debian 12's
# default); on kernels set higher it stops with "unexpected memory mapping", so the tests
# then run with address randomisation off.
run=()
bits=$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)
if ((bits > 28)); then run=(setarch "$(uname -m)" -R); fi

rc=0
"${run[@]}" build-tsan/tests/faultmesh_kernel_tests "$@" || rc=$?
reports=$(ls "$log_dir")
if [ -n "$reports" ]; then
  echo "run_tsan_tests: ThreadSanitizer reports:" >&2
  for f in "$log_dir"/*; do echo "== $f" >&2; cat "$f" >&2; done
  rc=1
fi
if ((rc == 0)); then
  echo "run_tsan_tests: no findings ($((SECONDS - start)) s)"
else
  echo "run_tsan_tests: FAILED ($((SECONDS - start)) s)" >&2
fi
exit $rc
