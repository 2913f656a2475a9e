#!/usr/bin/env bash
# A smoke test of the Slurm recipe on one machine: brings up a one-node Slurm
# from Debian's slurm-wlm and munge (as root; it installs them if missing),
# submits a small simulation as a job array of shards (simulate.sbatch) and
# the merge with --dependency=afterok (merge.sbatch), and checks that the
# merge prints what one process prints; then a small playtest rehearsal the
# same way (rehearse.sbatch, tally.sbatch), checking the tally counts every
# shard's runs and no scratch folder is left.
#
#   scripts/cluster/slurm-smoke.sh        (as root; TENTEN names the binary,
#                                          default target/release/tenten)
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "slurm-smoke: run as root (it installs and starts Slurm)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
tenten=${TENTEN:-$root/target/release/tenten}
[ -x "$tenten" ] || { echo "slurm-smoke: no tenten at $tenten (cargo build --release --no-default-features)" >&2; exit 2; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge
fi

# munge: a key, and the daemon running as its own user.
if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
mkdir -p /run/munge && chown munge:munge /run/munge
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged

# One node, this machine, with no cgroups (containers rarely allow them).
host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=tenten-smoke
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ReturnToService=2
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=smoke Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd
for _ in $(seq 60); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    case "$state" in down*|drain*) scontrol update nodename="$host" state=resume || true ;; esac
    sleep 1
done
echo "slurm-smoke: $(sinfo -h -o '%P %D %T %C')"

work=$(mktemp -d /tmp/tenten-slurm.XXXXXX)
shards=3
export SHARDS=$shards OUTDIR=$work/out TENTEN=$tenten
args=(--player greedy,novice --generator random,repair --games 90 --seed 3)
array=$(sbatch --parsable --chdir="$work" --array=0-$((shards - 1))%2 --cpus-per-task=1 \
    "$root/scripts/cluster/simulate.sbatch" "${args[@]}")
merge=$(sbatch --parsable --chdir="$work" --dependency=afterok:"$array" "$root/scripts/cluster/merge.sbatch")
echo "slurm-smoke: submitted array job $array (shards 0-$((shards - 1)), at most 2 at once) and merge job $merge (afterok:$array)"
for _ in $(seq 300); do
    [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
    sleep 1
done
[ -s "$OUTDIR/result.txt" ] || { echo "slurm-smoke: no merged result; logs in $work" >&2; tail -n 20 "$work"/*.log >&2 || true; exit 1; }

one=$("$tenten" simulate "${args[@]}" 2>/dev/null)
if diff <(sed 's/ rounds_per_s=.*//' <<<"$one") <(sed 's/ rounds_per_s=.*//' "$OUTDIR/result.txt"); then
    echo "slurm-smoke: the merge of $shards shards run as Slurm job $array equals one process, line for line ($(wc -l < "$OUTDIR/result.txt") lines, rounds_per_s aside)"
    ls "$OUTDIR"
else
    echo "slurm-smoke: the merge differs from one process" >&2
    exit 1
fi

# A small playtest rehearsal as a job array of shards (rehearse.sbatch),
# tallied once every shard has succeeded (tally.sbatch). Its servers deal
# from their own randomness, so the tally is checked for its runs, not
# against one process; the shards' scratch folders are checked gone.
export SHARDS=2 OUTDIR=$work/rehearsal REHEARSE_SCRATCH=$work/node-scratch
mkdir -p "$REHEARSE_SCRATCH"
array=$(sbatch --parsable --chdir="$work" --array=0-1 --cpus-per-task=1 \
    "$root/scripts/cluster/rehearse.sbatch" --population demo-churn --generator random --generator repair \
    --testers 10 --sessions 1 --runs 2 --size 8x8 --max-rounds 40 --idle 2)
tally=$(sbatch --parsable --chdir="$work" --dependency=afterok:"$array" "$root/scripts/cluster/tally.sbatch")
echo "slurm-smoke: submitted rehearsal array job $array (shards 0-1) and tally job $tally (afterok:$array)"
for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$array,$tally" 2>/dev/null)" ] && break
    # A failed shard holds the tally forever: stop waiting.
    squeue -h -j "$tally" -o %r 2>/dev/null | grep -q DependencyNeverSatisfied && { scancel "$tally"; break; }
    sleep 1
done
[ -s "$OUTDIR/tally.txt" ] || { echo "slurm-smoke: no tally; logs in $work" >&2; tail -n 20 "$work"/tenten-rehearse-*.log "$work"/tenten-tally-*.log >&2 || true; exit 1; }
runs=$(grep -c '^run=' "$OUTDIR/tally.txt" || true)
served=$(cat "$work"/tenten-rehearse-"$array"_*.log | grep -c "serving from scratch=$REHEARSE_SCRATCH/tenten-rehearse-$array-" || true)
if [ "$runs" = 4 ] && [ "$served" = 2 ] && grep -q '^power=[0-9]/2 ' "$OUTDIR/tally.txt" && [ -z "$(ls -A "$REHEARSE_SCRATCH")" ]; then
    echo "slurm-smoke: the rehearsal's 2 shards run as Slurm job $array, each from its own scratch folder, tally as one and leave no scratch: $(grep '^power=' "$OUTDIR/tally.txt")"
    ls "$OUTDIR"/shard-*
else
    echo "slurm-smoke: the rehearsal's tally lacks its runs ($runs of 4 lines), a shard served elsewhere ($served of 2), or a scratch folder was left:" >&2
    cat "$OUTDIR/tally.txt" >&2
    ls -A "$REHEARSE_SCRATCH" >&2
    exit 1
fi
