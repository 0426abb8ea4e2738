#!/bin/bash
# A real Slurm run of a sharded league on this one machine, checked against an unsharded
# run: sets up a single-node cluster (munge, slurmctld and slurmd from Debian's slurm-wlm,
# this host as controller and compute node), queues a 3-shard league of built-in bots
# with submit.sh, waits for the merge, and compares the merged tables with one
# uninterrupted run. Needs root; it is not part of the test suite (it installs packages
# and starts daemons). It stops the daemons it started. Meant for a scratch machine: it
# writes /etc/slurm/slurm.conf and cgroup.conf (keeping earlier ones as *.before-arbiter).
#
#   sudo deploy/slurm/single-node-test.sh [WORK_DIR]
#
# ARBITER names the binary to test (default: target/release/arbiter, built if missing).

set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d /tmp/arbiter-slurm.XXXXXX)}
work=$(mkdir -p "$work" && cd "$work" && pwd)
arbiter=${ARBITER:-$repo/target/release/arbiter}
if [ ! -x "$arbiter" ]; then
    (cd "$repo" && cargo build --release)
fi
export ARBITER=$arbiter

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y slurm-wlm munge
fi

started=()
cleanup() {
    if [[ " ${started[*]} " == *" slurm "* ]]; then
        scontrol shutdown >/dev/null 2>&1 || true
    fi
    if [[ " ${started[*]} " == *" munge "* ]] && [ -f /run/munge/munged.pid ]; then
        kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
    fi
}
trap cleanup EXIT

# munge: the key the package made (or a new one), and the daemon.
if [ ! -s /etc/munge/munge.key ]; then
    mungekey --create --keyfile=/etc/munge/munge.key
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged
    started+=(munge)
    sleep 1
fi
munge -n | unmunge | grep -q 'STATUS: *Success'

# Slurm: this host is the controller and the one node. No cgroup plugins: containers
# rarely let slurmd manage cgroups, and nothing here needs them.
host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
mkdir -p /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
for conf in slurm.conf cgroup.conf; do
    if [ -f "/etc/slurm/$conf" ] && [ ! -f "/etc/slurm/$conf.before-arbiter" ]; then
        cp "/etc/slurm/$conf" "/etc/slurm/$conf.before-arbiter"
    fi
done
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=arbiter-test
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
MinJobAge=600
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
cat > /etc/slurm/cgroup.conf <<CONF
CgroupPlugin=autodetect
CONF
if ! scontrol ping 2>/dev/null | grep -q UP; then
    slurmctld -c
    slurmd -c
    started+=(slurm)
fi
for _ in $(seq 1 30); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 1
done
echo "node $host: ${state:-unknown}"
[ "$state" = idle ] || { echo "the node did not come up; see /var/log/slurm/" >&2; exit 1; }

# The league: 3 shards through submit.sh, then the same league in one run. Random and
# greedy bots only: they are deterministic from the games' seeds, where alphabeta searches
# as deep as its time allows, so its games depend on the load.
league=(league --game asalto --pairs 2 --seed 5 --limit-ms 1000 -q
    builtin:random builtin:greedy r2=builtin:random g2=builtin:greedy)
cd "$work"
SBATCH_ARGS="--cpus-per-task=1" "$repo/deploy/slurm/submit.sh" 3 "$work/sharded" "${league[@]}"
read -r array merge < "$work/sharded/slurm-jobs"
for _ in $(seq 1 600); do
    [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
    sleep 1
done
scontrol show job "$merge" | grep -o 'JobState=[A-Z]* .*ExitCode=[0-9:]*' || true
cat "$work"/sharded/slurm-merge-*.out
[ -f "$work/sharded/merged/standings.csv" ] || { echo "no merged tables" >&2; exit 1; }

"$arbiter" "${league[@]}" --out "$work/whole" > /dev/null
without_times() {
    python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, name in enumerate(rows[0])
        if not name.endswith(("_max_ms", "_mean_ms")) and name != "duration_s"]
for row in rows:
    print(",".join(row[i] for i in keep))
PY
}
status=0
for table in standings pairwise points_matrix; do
    if cmp -s "$work/sharded/merged/$table.csv" "$work/whole/$table.csv"; then
        echo "$table.csv: merged shards = one run"
    else
        echo "$table.csv: DIFFERS" && status=1
    fi
done
if [ "$(without_times "$work/sharded/merged/games.csv")" = "$(without_times "$work/whole/games.csv")" ]; then
    echo "games.csv (times aside): merged shards = one run"
else
    echo "games.csv: DIFFERS" && status=1
fi
echo "results in $work"
exit $status
