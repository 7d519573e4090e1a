#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build, and run the default scenario —
# the mission in one go: a 2-D allreduce with verification on a 16x32 mesh (512 chips),
# fault-free and then with a board failing in the middle of it: detection, abort,
# reconfiguration, resume with the fault-tolerant algorithm, completion. It prints the
# timeline and the slowdown and writes JSON results, the run's HTML page (the mesh, the
# hole and the link load over time, docs/view.md), link-utilization heatmaps (PNG) and
# a small waveform around the failure. Then a short parameter sweep with its plots.
set -euo pipefail
cd "$(dirname "$0")/.."
bash sim/setup.sh
mkdir -p out
FM=./build/sim/faultmesh
COMMON=(--mesh 16x32 --topology mesh --vcs 4 --algo 2d --bytes 512KiB --verify on)
echo "== allreduce, fault-free: 2d on a 16x32 mesh, 512 KiB per chip, sums verified =="
$FM allreduce "${COMMON[@]}" --json out/demo_faultfree.json
echo
echo "== the same allreduce, board (3,7) failing when 40% of the data is reduced =="
$FM allreduce "${COMMON[@]}" --fail-at 40%:board:3,7 --json out/demo_fault.json \
  --html out/demo_fault.html --vcd out/demo_fault.vcd --wave-around-fault 300
$FM view out/demo_faultfree.json out/demo_fault.json -o out/demo_compare.html > /dev/null
t0=$(awk -F': ' '/^  "cycles"/ {gsub(",", "", $2); print $2}' out/demo_faultfree.json)
t1=$(awk -F': ' '/^  "cycles"/ {gsub(",", "", $2); print $2}' out/demo_fault.json)
echo
echo "slowdown: $t1 / $t0 cycles = $(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.2f", a / b }')x" \
     "(the failure, its detection, the reconfiguration and the resumed collective on 508 chips)"
$FM plot out/demo_faultfree.json --out out/demo_plots
$FM plot out/demo_fault.json --out out/demo_plots
echo
echo "== faultmesh sweep + plot (8x8: 1-2 VCs x no fault / board 1,1 failed x 9 loads) =="
$FM sweep sim/examples/demo_latency.ini --out out/demo_params
$FM plot out/demo_params --out out/demo_plots
echo
echo "results: out/demo_faultfree.json out/demo_fault.json (timeline, drops, conservation)"
echo "         out/demo_plots/heatmap_demo_faultfree.png out/demo_plots/heatmap_demo_fault.png"
echo "         out/demo_fault.vcd (gtkwave out/demo_fault.vcd waveforms/faults.gtkw)"
echo "         out/demo_params/results.csv out/demo_plots/latency_vs_load.png (and more figures)"
echo "         out/demo_params/index.html (the sweep's figures and points, each with its page)"
echo "page:    out/demo_fault.html (open it in a browser: the mesh, the hole, the link load over time;"
echo "         out/demo_compare.html: fault-free and faulted side by side)"
