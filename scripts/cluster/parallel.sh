#!/usr/bin/env bash
# One simulation as N shards under GNU parallel, on this machine or over the
# machines of an --sshloginfile, then merged: prints exactly the lines one
# `tenten simulate` process would print (rounds_per_s aside).
#
#   scripts/cluster/parallel.sh N OUTDIR [--sshloginfile FILE] -- SIMULATE-ARGS...
#
# Shard I writes OUTDIR/part-I.ron (checkpointing to OUTDIR/ckpt-I.ron, so a
# rerun of this command resumes killed shards); the merge writes
# OUTDIR/merged.ron (the window opens it in the Lab) and OUTDIR/games.csv.
# TENTEN names the binary (default: tenten on PATH, else target/release/tenten);
# JOBS shards run at once on each machine (default 1: a shard uses every core).
# Over ssh, the binary and OUTDIR must have the same paths on every machine
# (a shared folder).
set -euo pipefail

usage() { echo "usage: $0 N OUTDIR [--sshloginfile FILE] -- SIMULATE-ARGS..." >&2; exit 2; }
[ $# -ge 3 ] || usage
n=$1 outdir=$2
shift 2
[[ "$n" =~ ^[1-9][0-9]*$ ]] || usage
remote=()
if [ "${1:-}" = "--sshloginfile" ]; then
    remote=(--sshloginfile "$2")
    shift 2
fi
[ "${1:-}" = "--" ] || usage
shift

tenten=${TENTEN:-$(command -v tenten || echo "$(cd "$(dirname "$0")/../.." && pwd)/target/release/tenten")}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

# -q keeps each argument whole; --halt stops at the first failing shard.
parallel --will-cite -q --halt now,fail=1 --jobs "${JOBS:-1}" "${remote[@]}" \
    "$tenten" simulate "$@" --shard "{}/$n" --out "$outdir/part-{}.ron" --checkpoint "$outdir/ckpt-{}.ron" \
    ::: $(seq 0 $((n - 1)))

parts=()
for i in $(seq 0 $((n - 1))); do parts+=("$outdir/part-$i.ron"); done
"$tenten" merge "${parts[@]}" --csv "$outdir/games.csv" --out "$outdir/merged.ron"
