#!/bin/bash
# usage: sim/check_identical.sh OLD_BIN NEW_BIN [THREADS...]
# Runs a fixed set of allreduce and traffic configurations with both simulator binaries
# and compares their --json output without the host-timing fields (the "simulator" object,
# wall_seconds, router_cycles_per_second), their --csv output, a VCD and an FST byte for
# byte. Any difference in a simulated result fails. For optimisations that must not
# change what is simulated. Takes ~1-2 minutes.
# THREADS: thread counts for NEW_BIN (e.g. 1 2 3 8); OLD_BIN then runs with --threads 1
# and NEW_BIN once per count, so OLD_BIN = NEW_BIN checks that the parallel kernel gives
# the serial results (models/noc/clock.h). Without them both run with their defaults.
# NEW_BIN runs with --parallel-min 1: every cycle on the workers, small meshes too; and
# --prefetch on: the clock's prefetch hints on at every size.
# CHECK_IDENTICAL_QUICK=1 runs every third configuration (the default suite's short form),
# CHECK_IDENTICAL_QUICK=rest the other two thirds (the stress label's).
set -u
old=$1; new=$2; shift 2
threads=("$@")
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

# The same for --csv: the host-timing columns dropped.
strip_csv='import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
keep=[i for i,h in enumerate(rows[0]) if h not in ("wall_seconds","router_cycles_per_second") and not h.startswith("simulator.")]
w=csv.writer(sys.stdout)
for r in rows: w.writerow([r[i] for i in keep if i < len(r)])'

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
  # The issue cases for the parallel kernel: past saturation around a failed board, and
  # a mid-run board failure with the sums checked.
  "traffic --mesh 8x8 --pattern uniform --rate 0.6 --fail-board 1,1 --cycles 3000 --warmup 500 --max-drain 20000"
  "allreduce --mesh 8x8 --algo ft2d --bytes 256KiB --verify on --fail-at 40%:board:2,1"
  # Long links (the report's 200 cycles), where idle receivers sleep through a flight:
  # a latency-bound snake around a hole, a mid-run failure, and traffic.
  "allreduce --mesh 8x8 --algo snake --bytes 32KiB --verify on --link-latency 200 --credit-latency 200 --buf 408 --fail-board 1,2"
  "allreduce --mesh 8x8 --topology torus --algo ft2d --bytes 128KiB --verify on --link-latency 50 --credit-latency 30 --buf 112 --fail-at 50%:board:1,1"
  "traffic --mesh 8x8 --topology torus --pattern uniform --rate 0.05 --link-latency 40 --credit-latency 40 --buf 88 --fail-chip 3,3 --cycles 3000 --warmup 500"
)

if [ ${#threads[@]} -eq 0 ]; then old_args=(); new_runs=("")
else
  old_args=()  # a binary from before the parallel kernel has no --threads: it is serial
  if $old traffic --help 2>/dev/null | grep -q -- --threads; then old_args=(--threads 1); fi
  new_runs=(); for t in "${threads[@]}"; do new_runs+=("--threads $t"); done; fi

fail=0; i=0; ran=0
compare() {  # what, old file, new file
  if [ -s "$2" ] && cmp -s "$2" "$3"; then echo "same:      $1"
  else echo "DIFFERENT: $1"; diff "$2" "$3" 2>&1 | head -10; fail=1; fi
}
for c in "${checks[@]}"; do
  i=$((i+1))
  case ${CHECK_IDENTICAL_QUICK:-0} in
    1) [ $((i % 3)) = 1 ] || continue ;;
    rest) [ $((i % 3)) != 1 ] || continue ;;
  esac
  ran=$((ran+1))
  csv=(); case $c in traffic*) csv=(--csv "$dir/old$i.csv");; esac
  if ! $old $c "${old_args[@]}" -q --json "$dir/old$i.json" "${csv[@]}" > "$dir/old$i.out" 2>&1; then echo "old binary failed: $c"; fi
  python3 -c "$strip" "$dir/old$i.json" > "$dir/old$i.txt" 2>/dev/null
  for nr in "${new_runs[@]}"; do
    ncsv=(); case $c in traffic*) ncsv=(--csv "$dir/new$i.csv");; esac
    # shellcheck disable=SC2086
    if ! $new $c $nr --parallel-min 1 --prefetch on -q --json "$dir/new$i.json" "${ncsv[@]}" > "$dir/new$i.out" 2>&1; then echo "new binary failed: $c $nr"; fi
    if [ ! -s "$dir/old$i.json" ] || [ ! -s "$dir/new$i.json" ]; then
      echo "MISSING JSON: $c $nr"; fail=1; continue
    fi
    python3 -c "$strip" "$dir/new$i.json" > "$dir/new$i.txt"
    compare "$c $nr" "$dir/old$i.txt" "$dir/new$i.txt"
    if [ ${#csv[@]} -gt 0 ]; then
      python3 -c "$strip_csv" "$dir/old$i.csv" > "$dir/old$i.csv.txt"
      python3 -c "$strip_csv" "$dir/new$i.csv" > "$dir/new$i.csv.txt"
      compare "$c $nr --csv" "$dir/old$i.csv.txt" "$dir/new$i.csv.txt"
    fi
  done
done
# The waveform tracer reads link and router state through views that layout changes
# must keep exact: compare a VCD and an FST byte for byte too (credit latency > 1, two
# lanes).
wave="traffic --mesh 4x4 --rate 0.4 --cycles 300 --warmup 50 --credit-latency 3 --local-ports 2 -q"
for fmt in vcd fst; do
  $old $wave "${old_args[@]}" --$fmt "$dir/old.$fmt" > /dev/null 2>&1
  for nr in "${new_runs[@]}"; do
    rm -f "$dir/new.$fmt"
    # shellcheck disable=SC2086
    $new $wave $nr --parallel-min 1 --prefetch on --$fmt "$dir/new.$fmt" > /dev/null 2>&1
    compare "$wave $nr --$fmt" "$dir/old.$fmt" "$dir/new.$fmt"
  done
done
if [ $fail = 0 ]; then echo "all $ran runs, the VCD and the FST identical"; rm -rf "$dir"; else echo "differences found (files in $dir)"; fi
exit $fail
