#!/usr/bin/env bash
# Takes a screenshot of the real window under Xvfb into assets/screenshot.png.
# Needs: xvfb, xdotool, imagemagick (apt-get install -y xvfb xdotool imagemagick).
# Usage: scripts/screenshot.sh [deal.ron] [output.png] [keys to press first, e.g. ctrl+r]
# MOUSE="x y" puts the pointer there for the picture (default 700 450).
# CLICKS="x,y ..." clicks those points first.
# SCREEN=WxH sets the virtual screen (default 1400x900), e.g. SCREEN=1280x720.
# SCROLL="x,y,n" turns the mouse wheel n notches down at x,y before the picture.
# DRAG="x1,y1,x2,y2" drags from one point to the other first (a panel's edge).
# WAIT=s waits s seconds after CLICKS, before the picture.
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
# DRAG="x1,y1,x2,y2" drags with the left button first (a panel's edge).
if [ -n "${DRAG:-}" ]; then
    IFS=, read -r x1 y1 x2 y2 <<<"$DRAG"
    DISPLAY=$display xdotool mousemove "$x1" "$y1" mousedown 1
    sleep 0.3
    DISPLAY=$display xdotool mousemove $(((x1 + x2) / 2)) $(((y1 + y2) / 2))
    sleep 0.3
    DISPLAY=$display xdotool mousemove "$x2" "$y2"
    sleep 0.3
    DISPLAY=$display xdotool mouseup 1
    sleep 1
fi
# CLICKS="x,y x,y" clicks there first, in order (menus, collapsed sections);
# an item "sleep=S" waits S seconds; an item "key=K" presses K; an item "type=TEXT" types TEXT and presses
# Return instead (a file name in the window's own file dialog).
for click in ${CLICKS:-}; do
    if [ "${click#sleep=}" != "$click" ]; then
        # "sleep=S" waits S seconds between clicks (a job to end first).
        sleep "${click#sleep=}"
    elif [ "${click#key=}" != "$click" ]; then
        # "key=K" presses K (ctrl+a to select a field's text first).
        DISPLAY=$display xdotool key --clearmodifiers "${click#key=}"
    elif [ "${click#type=}" != "$click" ]; then
        DISPLAY=$display xdotool type --delay 20 "${click#type=}"
        DISPLAY=$display xdotool key Return
    else
        DISPLAY=$display xdotool mousemove "${click%,*}" "${click#*,}" click 1
    fi
    sleep 1
done
# WAIT=s waits that long after the clicks (a sweep or a simulation to end).
sleep "${WAIT:-0}"
# SCROLL="x,y,n" turns the wheel n notches down there (n < 0: up).
if [ -n "${SCROLL:-}" ]; then
    IFS=, read -r sx sy sn <<<"$SCROLL"
    button=5
    if [ "$sn" -lt 0 ]; then button=4; sn=$((-sn)); fi
    DISPLAY=$display xdotool mousemove "$sx" "$sy"
    for _ in $(seq "$sn"); do DISPLAY=$display xdotool click "$button"; sleep 0.05; done
    sleep 1
fi
# CLICKS_AFTER="x,y ..." clicks there after the scroll (a row far down a tab).
# Each may be followed by "+n": that many wheel notches down after it.
for click in ${CLICKS_AFTER:-}; do
    at=${click%+*}
    DISPLAY=$display xdotool mousemove "${at%,*}" "${at#*,}" click 1
    sleep 1
    if [ "$at" != "$click" ]; then
        for _ in $(seq "${click#*+}"); do DISPLAY=$display xdotool click 5; sleep 0.05; done
        sleep 1
    fi
done
if [ -n "${MOUSE:-}" ]; then
    # shellcheck disable=SC2086
    DISPLAY=$display xdotool mousemove $MOUSE
    sleep 1
fi
mkdir -p "$(dirname "$out")"
DISPLAY=$display import -window root "$out"
echo "wrote $out"
