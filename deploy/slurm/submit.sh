#!/bin/bash
# Queues a league on a Slurm cluster: a job array of N shards, then a merge that starts
# once every shard has succeeded.
#
#   deploy/slurm/submit.sh N OUT ARBITER_ARGS...
#
# for example
#
#   deploy/slurm/submit.sh 20 results/course run course
#   deploy/slurm/submit.sh 3 results/demo league --game asalto --pairs 2 \
#       builtin:random builtin:greedy builtin:alphabeta
#
# OUT must be on a file system every node sees. ARBITER names the binary (default:
# arbiter on PATH, else ./target/release/arbiter). Extra sbatch options (partition,
# account, time, CPUs) go in SBATCH_ARGS, e.g. SBATCH_ARGS="--partition=long -c 8".

set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 N OUT ARBITER_ARGS..." >&2
    exit 2
fi
shards=$1
out=$2
shift 2
case $shards in
    '' | *[!0-9]* | 0) echo "N must be a number of shards, at least 1: $shards" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${ARBITER:-}" ]; then
    ARBITER=$(command -v arbiter || echo "$PWD/target/release/arbiter")
fi
export ARBITER SHARDS=$shards
mkdir -p "$out"
# shellcheck disable=SC2086 # SBATCH_ARGS holds several options
array=$(sbatch --parsable ${SBATCH_ARGS:-} --array=1-"$shards" \
    --output="$out/slurm-%A_%a.out" --export=ALL \
    "$here/league.sbatch" "$out" "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --dependency=afterok:"$array" \
    --output="$out/slurm-merge-%j.out" --export=ALL \
    "$here/merge.sbatch" "$out")
merge=${merge%%;*}
echo "shards: job array $array (tasks 1-$shards) into $out/shard-K"
echo "merge:  job $merge into $out/merged, once every shard has succeeded"
echo "$array $merge" > "$out/slurm-jobs"
