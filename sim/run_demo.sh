#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build, and run the default scenario:
# uniform traffic on a 16x16 mesh, a latency-throughput sweep on 8x8, then a parameter
# sweep (VCs x a failed board x load, sim/examples/demo_latency.ini) and its plots.
set -euo pipefail
cd "$(dirname "$0")/.."
bash sim/setup.sh
mkdir -p out
echo "== faultmesh traffic (16x16 mesh, uniform, 0.1 flits/node/cycle) =="
./build/sim/faultmesh traffic --mesh 16x16 --topology mesh --vcs 2 --buf 8 --pipeline 3 \
  --link-latency 1 --pattern uniform --rate 0.1 --packet 4 --cycles 20000 --warmup 2000 \
  --seed 1 --json out/demo_traffic.json --csv out/demo_traffic.csv
echo
echo "== faultmesh latency-sweep (8x8 mesh, uniform) =="
./build/sim/faultmesh latency-sweep --mesh 8x8 --rates 0.05:0.6:0.05 --cycles 10000 \
  --warmup 1000 --json out/demo_sweep.json --csv out/demo_sweep.csv
echo
echo "== faultmesh sweep + plot (8x8: 1-2 VCs x no fault / board 1,1 failed x 9 loads) =="
./build/sim/faultmesh sweep sim/examples/demo_latency.ini --out out/demo_params
./build/sim/faultmesh plot out/demo_params --out out/demo_plots
echo
echo "results: out/demo_traffic.json out/demo_traffic.csv out/demo_sweep.json out/demo_sweep.csv"
echo "         out/demo_params/results.csv out/demo_plots/latency_vs_load.png (and .svg, more figures)"
