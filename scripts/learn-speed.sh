#!/usr/bin/env bash
# The learner's speed on a studio's scale, side by side with a baseline in
# the same run: `tenten fit-generator` on N deals of the classic set (10x10)
# and of 41 pieces never rotated (presets/pieces/fixed-41.ron, 8x8), dealt
# by the built-in `repair` to the `casual` model player, timed with
# /usr/bin/time for the head and for BASE (a git revision, built in a
# worktree of its own), both on the same log files.
#
#   scripts/learn-speed.sh [BASE] [N] [WHAT]
#
# BASE defaults to none (the head alone), N to 100000. WHAT is `checks`
# (the four checks: none, reject, repair under deepest, bag; no rules, no
# held-out, 10 replications), `all` (everything: three repair policies,
# held-out, the rules, 40 replications) or `both` (the default).
# Prints one line per run: set, code, what, wall seconds, CPU seconds,
# peak memory in MB, and the fit's first line.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-}
n=${2:-100000}
what=${3:-both}
work=${LEARN_SPEED_DIR:-target/learn-speed}
mkdir -p "$work"

# The headless CLI (no window to build), in target directories of their own.
CARGO_TARGET_DIR="$work/target-head" cargo build --release --quiet --no-default-features --bin tenten
cp "$work/target-head/release/tenten" "$work/head"
if [ -n "$base" ]; then
    rev=$(git rev-parse --short "$base")
    if [ ! -x "$work/base-$rev" ]; then
        tree="$work/tree-$rev"
        [ -d "$tree" ] || git worktree add --detach "$tree" "$rev" >/dev/null
        CARGO_TARGET_DIR="$work/target-base" cargo build --release --quiet --manifest-path "$tree/Cargo.toml" --bin tenten --no-default-features
        cp "$work/target-base/release/tenten" "$work/base-$rev"
    fi
fi

deals() { # set size file
    [ -s "$3" ] || "$work/head" deal --seed 1 --log "$n" --player casual --generator repair \
        --format jsonl --pieces "$1" --size "$2" > "$3"
}
deals presets/pieces/classic-1010.ron 10x10 "$work/classic-$n.jsonl"
deals presets/pieces/fixed-41.ron 8x8 "$work/fixed41-$n.jsonl"

run() { # label binary set size log what
    local opts=(--no-held-out --no-rules --policy deepest --replications 10)
    [ "$6" = all ] && opts=(--replications 40)
    local t="$work/time.txt"
    /usr/bin/time -f "%e %U %S %M" -o "$t" "$2" fit-generator "$5" --pieces "$3" --board "$4" \
        --out "$work/learned.ron" --force "${opts[@]}" > "$work/fit.txt"
    read -r wall user sys rss < "$t"
    printf '%s %s %s wall=%ss cpu=%ss peak=%sMB %s\n' "$1" "$(basename "$2")" "$6" "$wall" \
        "$(echo "$user + $sys" | bc)" "$((rss / 1024))" "$(head -1 "$work/fit.txt")"
}
bins=("$work/head")
[ -n "$base" ] && bins+=("$work/base-$rev")
for w in checks all; do
    [ "$what" = both ] || [ "$what" = "$w" ] || continue
    for b in "${bins[@]}"; do
        run classic "$b" presets/pieces/classic-1010.ron 10x10 "$work/classic-$n.jsonl" "$w"
        run fixed41 "$b" presets/pieces/fixed-41.ron 8x8 "$work/fixed41-$n.jsonl" "$w"
    done
done
