#!/usr/bin/env bash
# Fig. 8 of the paper (§6.3, data locality through resource offers): MapReduce
# framework instances, each a JobTracker of its own running one job whose maps
# read blocks spread over the slaves with three copies, sharing the cluster
# through offers with delay scheduling of 0 s (take any slot), 1 s and 5 s
# (wait that long for a slot on a node holding the block), against static
# partitions (each instance confined to its own node). The share of
# node-local maps and the job times. Runs on scripts/demo.sh's local cluster
# (a master and slave processes, each its own address): the paper's 16
# instances on 16 slaves in the full run, 4 on 4 in --quick.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ "$QUICK" = 1 ]; then
  instances=4 blocks=4 map_seconds=0.2
  export DEMO_SLAVES=4
else
  instances=16 blocks=16 map_seconds=1
  # A slave per instance, with room for several frameworks' TaskTrackers.
  export DEMO_SLAVES=16 DEMO_RESOURCES="cpus:4;mem:2048;disk:4096"
fi
copies=3
on_cluster mapreduce "$0"
waits=(0 1 5)
setup cluster "1 master and $DEMO_SLAVES slave processes on this machine (${DEMO_RESOURCES:-cpus:2;mem:1024} each; slots of 0.5 cpu)"
setup instances "$instances MapReduce frameworks (a JobTracker each), one streaming job each, submitted at once"
setup jobs "$blocks blocks of 20 KB each, $copies copies (the first round-robin over the nodes, the second on the other rack, the third beside the second, as HDFS places them), maps of ${map_seconds} s"
setup locality_waits "${waits[*]} s, every instance using the whole cluster"
setup static_partitions "each instance confined to one node (--hosts), no locality wait"
figure nodes "$DEMO_SLAVES" nodes
figure block_copies "$copies" copies
figure instances "$instances" frameworks
dfs="$BUILD_DIR/frameworks/dfs/mesos-dfs"
mapreduce="$BUILD_DIR/frameworks/mapreduce/mesos-mapreduce"
export MESOS_DFS_ROOT="$DEMO_DIR/dfs"
jobs=$instances
for job in $(seq "$jobs"); do
  "$dfs" generate --output="$DEMO_DIR/in-$job.txt" --answers=/dev/null \
    --lines=$((blocks * 500)) --seed="$job" >/dev/null
  "$dfs" put "$DEMO_DIR/in-$job.txt" "/eval/in-$job" --nodes="$MESOS_NODES" \
    --replication="$copies" --block_size=20000 >/dev/null
done
: >"$OUT/locality.dat"
# measure LABEL FLAGS...: one JobTracker per FLAGS word (each word: that
# tracker's flags, comma-separated), the jobs submitted at once, round-robin
# over them; the share of node-local maps and the mean job time.
measure() {
  local label=$1 ports=() pids=() ids=() trackers=() flags port job id
  shift
  for flags in "$@"; do
    port=$(free_port)
    IFS=, read -r -a extra <<<"$flags"
    "$mapreduce" jobtracker --master="$MESOS_MASTER" --ip=127.0.0.1 --port="$port" "${extra[@]}" \
      >"$OUT/jobtracker-$label-$port.log" 2>&1 &
    pids+=($!)
    trackers+=("127.0.0.1:$port")
    await 10 listening "$port" || true
  done
  for job in $(seq "$jobs"); do
    local tracker=${trackers[$(((job - 1) % ${#trackers[@]}))]}
    ids+=("$tracker $("$mapreduce" submit --jobtracker="$tracker" --job=streaming \
      --map_command="sleep $map_seconds; cat" --input="/eval/in-$job" \
      --output="$DEMO_DIR/out-$label-$job" | sed -n 1p)")
  done
  for id in "${ids[@]}"; do
    "$mapreduce" wait "${id#* }" --jobtracker="${id%% *}" --json --timeout=900 | tail -n 1
  done >"$OUT/reports-$label.json"
  kill "${pids[@]}"
  wait "${pids[@]}" || true
  read -r nodelocal jobtime failed < <(python3 - "$OUT/reports-$label.json" <<'PY'
import json, statistics, sys
reports = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
local = sum(r["locality"]["node_local"] for r in reports)
total = sum(r["locality"]["node_local"] + r["locality"]["rack_local"] + r["locality"]["remote"]
            for r in reports)
failed = sum(1 for r in reports if r.get("state") != "succeeded")
mean = statistics.mean(r["seconds"] for r in reports) if reports else float("nan")
print(f"{100.0 * local / max(total, 1):.1f} {mean:.2f} {failed}")
PY
  )
  figure "node_local_pct_$label" "$nodelocal" %
  figure "job_s_mean_$label" "$jobtime" s
  figure "jobs_failed_$label" "$failed" jobs
  echo "$label $nodelocal $jobtime" >>"$OUT/locality.dat"
}
# Static partitions: each instance using only its node's offers (--hosts),
# as the paper gave each Hadoop instance its own nodes; no delay scheduling
# (waiting for nodes outside the partition is waiting for nothing).
static=()
IFS=, read -r -a nodes <<<"$MESOS_NODES"
for node in "${nodes[@]::$instances}"; do static+=("--hosts=${node%%:*},--locality_wait=0"); done
measure static "${static[@]}"
# Sharing the whole cluster through offers, delay scheduling at each wait.
for wait in "${waits[@]}"; do
  shared=()
  for _ in $(seq "$instances"); do shared+=("--locality_wait=$wait"); done
  measure "wait$wait" "${shared[@]}"
done
gnuplot <<GNUPLOT
$(plot_header "$OUT/locality.png" "Figure 8: data locality and job time, static partitions against sharing")
$(histogram_style)
set boxwidth 0.9
set xlabel "static partitions, or sharing with delay scheduling of N s (waitN)"
set ylabel "node-local maps (%)"
set y2label "mean job time (s)"
set yrange [0:105]
set y2range [0:*]
set ytics nomirror
set y2tics
set grid y
set key top left
plot "$OUT/locality.dat" using 2:xtic(1) title "node-local maps (%)" lc rgb "dark-blue", \
     "" using 0:3 axes x1y2 with linespoints lw 2 pt 7 lc rgb "dark-red" title "mean job time (s)"
GNUPLOT
