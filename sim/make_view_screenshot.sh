#!/usr/bin/env bash
# Makes docs/img/view_demo.png (the README's and docs/view.md's picture): the demo's
# faulted allreduce (sim/run_demo.sh: 16x32 mesh, board (3,7) failing at 40 %) writes
# its page, and headless Chromium, as in the browser test (tests/sim/view_test.cpp), takes
# a screenshot of it at a cycle after the restart. Needs a built faultmesh and chromium
# (sim/setup.sh installs both). Usage: sim/make_view_screenshot.sh [CYCLE] [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."
CYCLE=${1:-12288}
OUT=${2:-docs/img/view_demo.png}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
./build/sim/faultmesh allreduce --mesh 16x32 --topology mesh --vcs 4 --algo 2d --bytes 512KiB --verify on \
  --fail-at 40%:board:3,7 -q --json "$work/demo_fault.json" --html "$work/demo_fault.html"
sandbox=()
[ "$(id -u)" -eq 0 ] && sandbox=(--no-sandbox)  # Chromium refuses to run as root with its sandbox
chromium --headless "${sandbox[@]}" --disable-gpu --no-first-run --user-data-dir="$work/profile" \
  --hide-scrollbars --window-size=1040,930 --virtual-time-budget=10000 \
  --screenshot="$work/shot.png" "file://$work/demo_fault.html#cycle=$CYCLE" 2>/dev/null
cp "$work/shot.png" "$OUT"
echo "$OUT"
