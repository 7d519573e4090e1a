#!/usr/bin/env bash
# The fuzz targets (docs/fuzzing.md): installs clang and libFuzzer when missing, builds
# tests/fuzz/ into build-fuzz/ (clang++-14, libFuzzer, ASan, UBSan), replays every seed
# and regression input of tests/fuzz/corpus/, then fuzzes each target for SECONDS
# (default 60). Exits non-zero on any finding: a crash, a sanitizer report, a hang
# (-timeout 10 s), an input over -rss_limit_mb 2048, or a broken invariant. Findings are
# saved as build-fuzz/artifacts/<target>-crash-*, -timeout-*, -oom-*; new corpus entries
# go to build-fuzz/work/<target>/ (the repository's corpus is only read).
#   sim/run_fuzz.sh            # 60 s per target (CI)
#   sim/run_fuzz.sh 3600       # an hour per target
#   TARGETS="fuzz_routes" FUZZ_JOBS=2 sim/run_fuzz.sh 600
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
TARGETS=${TARGETS:-"fuzz_config fuzz_fault_schedule fuzz_sweep_spec fuzz_routes"}
FUZZ_JOBS=${FUZZ_JOBS:-1}  # libFuzzer -jobs/-workers per target

# The packages of the build (sim/setup.sh) the fuzz targets need, with clang-14 and its
# runtime (libFuzzer, the sanitizers); verilator for the FST writer sources it ships.
PKGS=(cmake pkg-config clang-14 libclang-rt-14-dev libsystemc-dev verilator
      libboost-program-options-dev nlohmann-json3-dev zlib1g-dev)
source sim/install_packages.sh
install_packages run_fuzz "${PKGS[@]}"

CC=clang-14 CXX=clang++-14 cmake -S tests/fuzz -B build-fuzz >/dev/null
cmake --build build-fuzz -j"${JOBS:-2}"

# Per target: the longest input worth trying; fuzz_routes reads at most 77 bytes and
# tries every length at once (-len_control=0: big fault sets from the start).
target_opts() {
  case $1 in
    fuzz_routes) echo "-max_len=80 -len_control=0" ;;
    fuzz_fault_schedule) echo "-max_len=1024" ;;
    *) echo "-max_len=4096" ;;
  esac
}

mkdir -p build-fuzz/artifacts
failed=()
for t in $TARGETS; do
  bin=build-fuzz/$t corpus=tests/fuzz/corpus/$t dict=tests/fuzz/dict/$t.dict
  opts=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="build-fuzz/artifacts/$t-")
  [ -f "$dict" ] && opts+=(-dict="$dict")
  echo "== $t: replaying $(ls "$corpus" | wc -l) corpus inputs"
  if ! "$bin" "${opts[@]}" -runs=0 "$corpus" >"build-fuzz/artifacts/$t.replay.log" 2>&1; then
    tail -40 "build-fuzz/artifacts/$t.replay.log"
    failed+=("$t (corpus replay)")
    continue
  fi
  ((SECONDS_PER_TARGET > 0)) || continue
  echo "== $t: fuzzing ${SECONDS_PER_TARGET} s"
  mkdir -p "build-fuzz/work/$t"
  log=build-fuzz/artifacts/$t.log
  read -ra extra <<<"$(target_opts "$t")"
  run=("$bin" "${opts[@]}" "${extra[@]}" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1)
  ((FUZZ_JOBS > 1)) && run+=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
  if "${run[@]}" "build-fuzz/work/$t" "$corpus" >"$log" 2>&1; then
    grep -E "^#[0-9]+[[:space:]]+DONE|stat::average_exec_per_sec" "$log" | sed "s/^/   /" || true
  else
    tail -60 "$log"
    failed+=("$t")
  fi
done

if ((${#failed[@]})); then
  echo "run_fuzz: FINDINGS in ${failed[*]}; inputs in build-fuzz/artifacts/ (reproduce: build-fuzz/<target> FILE; docs/fuzzing.md)"
  exit 1
fi
echo "run_fuzz: no findings (${SECONDS_PER_TARGET} s per target: $TARGETS)"
