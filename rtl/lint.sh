#!/usr/bin/env bash
# Lints the RTL router with Verilator -Wall for every required parameter set (the upper
# bounds of the run-time configuration), with and without the bug-injection defines, and
# checks that illegal parameters fail at elaboration. Exits non-zero on any warning, error or unexpected success.
# Usage: rtl/lint.sh   (from anywhere; VERILATOR overrides the binary)
set -u
cd "$(dirname "$0")"
VERILATOR=${VERILATOR:-verilator}
SRCS=(fm_pkg.sv fm_rr_arbiter.sv fm_route_table.sv fm_input_unit.sv fm_output_unit.sv
      fm_vc_alloc.sv fm_sw_alloc.sv fm_router.sv)
fail=0
lint() {  # lint <description> <verilator args...>
  local what=$1; shift
  local out rc
  out=$("$VERILATOR" --lint-only -Wall --assert --top-module fm_router "$@" "${SRCS[@]}" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || grep -q '%Warning\|%Error' <<<"$out"; then
    echo "FAIL lint $what"
    echo "$out"
    fail=1
  else
    echo "ok   lint $what"
  fi
}
# Must be rejected at elaboration.
reject() {  # reject <description> <verilator args...>
  local what=$1; shift
  local out
  if out=$("$VERILATOR" --lint-only -Wall --top-module fm_router "$@" "${SRCS[@]}" 2>&1); then
    echo "FAIL reject $what: accepted"
    fail=1
  elif ! grep -q 'fm_router: ' <<<"$out"; then
    echo "FAIL reject $what: failed without the parameter message"
    echo "$out"
    fail=1
  else
    echo "ok   reject $what"
  fi
}

# (NUM_VCS, BUF_DEPTH, PIPELINE) sets of the issue: the upper bounds of the run-time
# configuration (cfg_* pins; the pointer rule is a pin, not a parameter). 4 8 4 is the
# verilated build of rtl/CMakeLists.txt, 2 4 3 the bug-injection builds'.
for vbp in "1 1 1" "2 4 3" "4 8 4" "16 2 2" "3 5 1" "2 8 2"; do
  set -- $vbp
  lint "V=$1 B=$2 P=$3" -GNUM_VCS=$1 -GBUF_DEPTH=$2 -GPIPELINE=$3
done
# Defaults, table sizes, the extremes, and the injected bugs.
lint "defaults"
lint "NUM_DESTS=1" -GNUM_DESTS=1
lint "NUM_DESTS=1000" -GNUM_DESTS=1000
lint "NUM_DESTS=1024 V=8 B=4096 P=4" -GNUM_DESTS=1024 -GNUM_VCS=8 -GBUF_DEPTH=4096 -GPIPELINE=4
lint "FM_BUG_RR_STUCK" -DFM_BUG_RR_STUCK -GNUM_VCS=2 -GBUF_DEPTH=4 -GPIPELINE=3
lint "FM_BUG_LOSE_CREDIT" -DFM_BUG_LOSE_CREDIT -GNUM_VCS=2 -GBUF_DEPTH=4 -GPIPELINE=3

reject "NUM_VCS=0" -GNUM_VCS=0
reject "NUM_VCS=17" -GNUM_VCS=17
reject "BUF_DEPTH=0" -GBUF_DEPTH=0
reject "BUF_DEPTH=4097" -GBUF_DEPTH=4097
reject "PIPELINE=0" -GPIPELINE=0
reject "PIPELINE=5" -GPIPELINE=5
reject "NUM_DESTS=0" -GNUM_DESTS=0

if [ $fail -ne 0 ]; then echo "lint: FAILED"; exit 1; fi
echo "lint: all clean"
