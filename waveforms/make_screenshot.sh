#!/usr/bin/env bash
# Makes waveforms/screenshot.png (the README's picture): a real traffic run written as
# VCD, opened in GTKWave with waveforms/router.gtkw on a virtual X display (Xvfb), the
# window captured with ImageMagick's import. Needs a built faultmesh (sim/setup.sh) and
# installs gtkwave, xvfb, xauth and imagemagick if missing (Debian 12; CI needs none of
# them). Usage: waveforms/make_screenshot.sh [SAVEFILE] [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."
SAVE=${1:-waveforms/router.gtkw}
OUT=${2:-waveforms/screenshot.png}
BIN=build/sim/faultmesh

missing=()
for p in gtkwave xvfb xauth imagemagick; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The run the save file names on its "[*] faultmesh-run:" line.
run=$(sed -n 's/^\[\*\] faultmesh-run: //p' "$SAVE")
# shellcheck disable=SC2086  # the run line is a list of options
$BIN $run --vcd "$work/out.vcd"

# GTKWave reads the save file, then a Tcl script that zooms to the first 60 cycles.
cat >"$work/zoom.tcl" <<'TCL'
gtkwave::setZoomRangeTimes 0 60
gtkwave::setMarker 20
TCL
export DISPLAY=:97
Xvfb "$DISPLAY" -screen 0 1500x900x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$work"' EXIT
sleep 2
save=$(realpath "$SAVE")
# From inside $work, so the window title names out.vcd as the README's command does.
(cd "$work" && HOME="$work" exec gtkwave --script zoom.tcl out.vcd "$save" >gtkwave.log 2>&1) &
gtk=$!
sleep 6
if ! kill -0 "$gtk" 2>/dev/null; then
  echo "gtkwave exited early:" >&2
  cat "$work/gtkwave.log" >&2
  exit 1
fi
import -window root "$OUT"
kill "$gtk" 2>/dev/null || true
echo "wrote $OUT"
