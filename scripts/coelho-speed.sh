#!/usr/bin/env bash
# The machine player's speed beside its reference, the 1010! analysis's own C
# program, in the same run: both pinned to one core, the figure the ratio of
# rounds per second (the machine player: coelho's strategy, weights 10025).
#
# The C program is zx80/1010 by Fabien Coelho, GPL v3: it is not part of this
# MIT project and is not copied into it. Get its one file, 1010.c, from
# https://github.com/zx80/1010 (git clone https://github.com/zx80/1010), then:
#
#   cargo build --release
#   scripts/coelho-speed.sh PATH/TO/1010.c [SECONDS]     (or COELHO_C=PATH/TO/1010.c)
#
# Needs gcc and taskset (util-linux). TENTEN_BIN names another tenten binary.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-${COELHO_C:-}}
secs=${2:-15}
if [ -z "$src" ] || [ ! -f "$src" ]; then
    echo "error: give the path of zx80/1010's 1010.c (GPL v3, not part of this project):" >&2
    echo "  git clone https://github.com/zx80/1010 && scripts/coelho-speed.sh 1010/1010.c" >&2
    echo "  (or set COELHO_C=PATH/TO/1010.c)" >&2
    exit 2
fi
bin=${TENTEN_BIN:-target/release/tenten}
if [ ! -x "$bin" ]; then
    echo "error: $bin is missing: run cargo build --release first (or set TENTEN_BIN)" >&2
    exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -Ofast -march=native -DONE_RANDOM -o "$work/1010" "$src" -lpthread -lm
core=$(( $(nproc) - 1 ))
s=$(date +%s.%N)
timeout "$secs" taskset -c "$core" "$work/1010" auto 1 10025 >"$work/out" 2>&1 || true
e=$(date +%s.%N)
c_rps=$(awk -v n="$(grep -c '^best' "$work/out" || true)" -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", n / (e - s) }')
ours=$(taskset -c "$core" "$bin" simulate --generator random --player coelho --weights 10025 --games 1 --max-rounds 1000 --seed 1 2>&1)
o_rps=$(grep -oE 'rounds_per_s=[0-9.]+' <<<"$ours" | cut -d= -f2)
awk -v o="$o_rps" -v c="$c_rps" 'BEGIN {
    if (c <= 0) { print "error: the C program played no rounds (no \"best\" lines in its output)" > "/dev/stderr"; exit 1 }
    printf "machine (coelho 10025), one core: %.0f rounds/s; the C program: %.0f rounds/s; ratio %.2f\n", o, c, o / c
}'
