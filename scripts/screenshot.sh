#!/usr/bin/env bash
# Takes a screenshot of the real window under Xvfb into assets/screenshot.png.
# Needs: xvfb, xdotool, imagemagick (apt-get install -y xvfb xdotool imagemagick).
# Usage: scripts/screenshot.sh [deal.ron] [output.png] [keys to press first, e.g. ctrl+r]
# MOUSE="x y" puts the pointer there for the picture (default 700 450).
# CLICKS="x,y ..." clicks those points first.
# SCREEN=WxH sets the virtual screen (default 1400x900), e.g. SCREEN=1280x720.
# SCROLL="x,y,n" turns the mouse wheel n notches down at x,y before the picture.
set -euo pipefail
cd "$(dirname "$0")/.."
deal=${1:-presets/deals/unsolvable-fit-alone-not-together.ron}
out=${2:-assets/screenshot.png}
for tool in Xvfb xdotool import; do
    command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y xvfb xdotool imagemagick" >&2; exit 1; }
done
cargo build --release --quiet
display=:$((90 + RANDOM % 9))
Xvfb "$display" -screen 0 "${SCREEN:-1400x900}x24" >/dev/null 2>&1 &
xvfb=$!
# A fresh session: nothing remembered from earlier runs.
data=$(mktemp -d)
trap 'kill $app $xvfb 2>/dev/null || true; rm -rf "$data"' EXIT
sleep 1
DISPLAY=$display XDG_DATA_HOME=$data HOME=$data ./target/release/tenten open "$deal" &
app=$!
for _ in $(seq 60); do
    DISPLAY=$display xdotool search --name "Tenten Workbench" >/dev/null 2>&1 && break
    sleep 0.5
done
sleep 3
window=$(DISPLAY=$display xdotool search --name "Tenten Workbench" | head -1)
DISPLAY=$display xdotool windowfocus --sync "$window" mousemove 700 450
for key in "${@:3}"; do
    DISPLAY=$display xdotool key --clearmodifiers "$key"
    sleep 1
done
# CLICKS="x,y x,y" clicks there first, in order (menus, collapsed sections).
for click in ${CLICKS:-}; do
    DISPLAY=$display xdotool mousemove "${click%,*}" "${click#*,}" click 1
    sleep 1
done
# SCROLL="x,y,n" turns the wheel n notches down there (n < 0: up).
if [ -n "${SCROLL:-}" ]; then
    IFS=, read -r sx sy sn <<<"$SCROLL"
    button=5
    if [ "$sn" -lt 0 ]; then button=4; sn=$((-sn)); fi
    DISPLAY=$display xdotool mousemove "$sx" "$sy"
    for _ in $(seq "$sn"); do DISPLAY=$display xdotool click "$button"; sleep 0.05; done
    sleep 1
fi
if [ -n "${MOUSE:-}" ]; then
    # shellcheck disable=SC2086
    DISPLAY=$display xdotool mousemove $MOUSE
    sleep 1
fi
mkdir -p "$(dirname "$out")"
DISPLAY=$display import -window root "$out"
echo "wrote $out"
