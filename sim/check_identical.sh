#!/bin/bash
# usage: sim/check_identical.sh OLD_BIN NEW_BIN
# Runs a fixed set of allreduce and traffic configurations with both simulator binaries
# and compares their --json output without the host-timing fields (the "simulator" object,
# wall_seconds, router_cycles_per_second). Any difference in a simulated result fails.
# For optimisations that must not change what is simulated. Takes ~1-2 minutes.
set -u
old=$1; new=$2
dir=$(mktemp -d /tmp/check_identical.XXXXXX)
strip='import json,sys
def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items()
                if k not in ("simulator", "wall_seconds", "router_cycles_per_second",
                             "setup_seconds", "peak_rss_kb", "flit_hops_per_second")}
    if isinstance(o, list):
        return [clean(v) for v in o]
    return o
print(json.dumps(clean(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))'

checks=(
  "allreduce --mesh 4x4 --algo 2d --bytes 64KiB --verify on"
  "allreduce --mesh 4x4 --topology torus --algo ft2d --bytes 64KiB --verify on"
  "allreduce --mesh 4x4 --algo shrink --bytes 64KiB --verify on"
  "allreduce --mesh 4x4 --topology torus --algo snake --bytes 64KiB --verify on"
  "allreduce --mesh 4x4 --algo ring --bytes 64KiB --verify on --local-ports 1"
  "allreduce --mesh 4x4 --topology torus --algo biring --bytes 64KiB --verify on"
  "allreduce --mesh 4x4 --algo altring --bytes 64KiB --verify on --local-ports 2"
  "allreduce --mesh 8x8 --topology torus --algo 2d --bytes 256KiB --verify on"
  "allreduce --mesh 8x8 --algo ft2d --bytes 128KiB --verify on --order both"
  "allreduce --mesh 8x8 --topology torus --algo shrink --bytes 128KiB --verify on --vcs 2 --pipeline 1"
  "allreduce --mesh 8x8 --algo snake --bytes 128KiB --verify on --arbiter islip --buf 4"
  "allreduce --mesh 8x8 --topology torus --algo ring --bytes 128KiB --verify on --link-latency 3 --credit-latency 2"
  "allreduce --mesh 8x8 --algo biring --bytes 128KiB --verify on --fail-chip 2,3"
  "allreduce --mesh 8x8 --topology torus --algo altring --bytes 128KiB --verify on --pipeline 4"
  "allreduce --mesh 8x8 --algo 2d --bytes 256KiB --verify on --fail-at 40%:board:1,1"
  "allreduce --mesh 8x8 --topology torus --algo 2d --bytes 256KiB --verify on --fail-at 30%:link:2,2:E --vcs 3"
  "traffic --mesh 8x8 --pattern uniform --rate 0.3 --vcs 2 --pipeline 3 --cycles 3000 --warmup 500"
  "traffic --mesh 8x8 --topology torus --pattern transpose --rate 0.25 --vcs 3 --buf 2 --pipeline 4 --link-latency 3 --credit-latency 2 --cycles 3000 --warmup 500"
  "traffic --mesh 8x8 --pattern transpose --rate 0.4 --vcs 1 --pipeline 1 --arbiter islip --cycles 3000 --warmup 500"
  "traffic --mesh 8x8 --pattern hotspot --hotspot 3,3 --rate 0.2 --pipeline 2 --local-ports 2 --packet 1-6 --cycles 3000 --warmup 500"
  "traffic --mesh 8x8 --topology torus --pattern bitcomp --rate 0.5 --vcs 4 --local-ports 4 --packet 8 --cycles 3000 --warmup 500 --seed 7"
  "traffic --mesh 8x8 --pattern tornado --rate 0.2 --fail-chip 4,4 --local-ports 2 --cycles 3000 --warmup 500"
  "allreduce --mesh 16x16 --topology torus --algo 2d --bytes 256KiB --verify off"
)

fail=0; i=0
for c in "${checks[@]}"; do
  i=$((i+1))
  if ! $old $c -q --json "$dir/old$i.json" > "$dir/old$i.out" 2>&1; then echo "old binary failed: $c"; fi
  if ! $new $c -q --json "$dir/new$i.json" > "$dir/new$i.out" 2>&1; then echo "new binary failed: $c"; fi
  if [ ! -s "$dir/old$i.json" ] || [ ! -s "$dir/new$i.json" ]; then
    echo "MISSING JSON: $c"; fail=1; continue
  fi
  python3 -c "$strip" "$dir/old$i.json" > "$dir/old$i.txt"
  python3 -c "$strip" "$dir/new$i.json" > "$dir/new$i.txt"
  if cmp -s "$dir/old$i.txt" "$dir/new$i.txt"; then
    echo "same:      $c"
  else
    echo "DIFFERENT: $c"; diff "$dir/old$i.txt" "$dir/new$i.txt" | head -10; fail=1
  fi
done
# The waveform tracer reads link and router state through views that layout changes
# must keep exact: compare a VCD byte for byte too (credit latency > 1, two lanes).
wave="traffic --mesh 4x4 --rate 0.4 --cycles 300 --warmup 50 --credit-latency 3 --local-ports 2 -q"
$old $wave --vcd "$dir/old.vcd" > /dev/null 2>&1; $new $wave --vcd "$dir/new.vcd" > /dev/null 2>&1
if [ -s "$dir/old.vcd" ] && cmp -s "$dir/old.vcd" "$dir/new.vcd"; then
  echo "same:      $wave --vcd"
else
  echo "DIFFERENT: $wave --vcd"; fail=1
fi
if [ $fail = 0 ]; then echo "all ${#checks[@]} runs and the VCD identical"; rm -rf "$dir"; else echo "differences found (files in $dir)"; fi
exit $fail
