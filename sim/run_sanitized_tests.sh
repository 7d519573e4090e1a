#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer):
# installs what is missing and builds everything instrumented into build-asan/ (sim/setup.sh
# with -DFAULTMESH_SANITIZE=ON), then runs ctest there with every finding fatal.
# Extra arguments go to ctest (e.g. -R Conservation). JOBS sets build and ctest
# parallelism (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
# FAULTMESH_SAN_QUICK=1 (CI): the verilated RTL is built without sanitizers (instrumenting
# its huge generated functions takes longer than building everything else; our code that
# drives it stays instrumented), fewer failure schedules, and the slowest tests left out
# below. Without it: everything instrumented, every test but the two named below.
# The quick form also compiles with line tables only (-g1: file:line in every report, no
# variable information; a quarter to a third less compile time).
quick=${FAULTMESH_SAN_QUICK:-0}
rtl_san=ON
debug=-g
[ "$quick" = 1 ] && rtl_san=OFF && debug=-g1
BUILD_TYPE=RelWithDebInfo bash sim/setup.sh build-asan -DFAULTMESH_SANITIZE=ON -DFAULTMESH_SANITIZE_RTL=$rtl_san \
  -DFAULTMESH_SANITIZE_DEBUG=$debug

# The long labels in a shorter form: instrumented code runs several times slower (a
# 16x16 torus near saturation: 33 s for 5,000 cycles). The seeds count is the default
# suite's own; FAULTMESH_SAN_* ask for more.
export FAULTMESH_STRESS_CYCLES=${FAULTMESH_SAN_STRESS_CYCLES:-5000}
export FAULTMESH_COSIM_CYCLES=${FAULTMESH_SAN_COSIM_CYCLES:-100000}
export FAULTMESH_FAULT_SEEDS=${FAULTMESH_SAN_FAULT_SEEDS:-$([ "$quick" = 1 ] && echo 10 || echo 30)}

# Every report also goes to a file under $log_dir (<name>.<pid>): a test that expects the
# faultmesh binary it runs to fail (bad input) would otherwise pass when that child dies
# of a finding instead. Any file there fails this script.
log_dir=$PWD/build-asan/sanitizer-logs
rm -rf "$log_dir"
mkdir -p "$log_dir"
# ASan: halt_on_error=1 stops at the first finding; detect_leaks=1 (LeakSanitizer at
# exit: no suppressions needed, SystemC's globals stay reachable); detect_stack_use_
# after_return=0, libasan's default, said outright: its fake stacks are per thread, not
# per SystemC coroutine stack. SystemC 2.3.4 announces its stack switches to ASan
# (__sanitizer_start_switch_fiber), so nothing else is needed for SC_THREADs.
# UBSan: -fno-sanitize-recover=all already makes every finding fatal; halt_on_error=1
# says so here too, print_stacktrace=1 shows where it came from.
export ASAN_OPTIONS="halt_on_error=1:print_stacktrace=1:detect_leaks=1:detect_stack_use_after_return=0:log_path=$log_dir/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$log_dir/ubsan"

cd build-asan
rc=0
# Left out: stress.exhaustive_holes (864 8x8 and 16x16 simulations, a fixed quarter of
# them in CI's normal suite; the default suite simulates every single-board hole and the awkward shapes) and
# the slurm label (Slurm daemons and job plumbing; the sweep code it runs is the local
# backend's, which the sweep tests run).
# The quick form also leaves out the stress, cosim-long and bench labels, rtl.lint
# (Verilator's linter: nothing instrumented runs), the paper report end to end (minutes
# of child runs; its parts are unit-tested) and the two slowest routing sweeps (1,000
# random fault sets, every 8x8 board hole simulated): together over half the run.
labels='^slurm$'
exclude='^stress\.exhaustive_holes$'
if [ "$quick" = 1 ]; then
  labels='^(slurm|stress|cosim-long|bench)$'
  exclude='^(stress\.exhaustive_holes|rtl\.lint|ReportPaper\..*|Schemes\.ThousandRandomFaultSets|Schemes\.SimulateEveryBoardHoleOn8x8)$'
fi
ctest --output-on-failure -j"${JOBS:-2}" -LE "$labels" -E "$exclude" "$@" || rc=$?
# Files holding only ASan's "ignoring requested __asan_handle_no_return" warning (an
# exception thrown on an SC_THREAD stack: ASan cannot unpoison a stack it does not know
# the bounds of; it reports no error) do not count; an ERROR or runtime error does.
reports=$(grep -l -e 'ERROR: ' -e 'runtime error: ' "$log_dir"/* 2>/dev/null || true)
if [ -n "$reports" ]; then
  echo "run_sanitized_tests: sanitizer reports:" >&2
  for f in $reports; do echo "== $f" >&2; cat "$f" >&2; done
  rc=1
fi
exit $rc
