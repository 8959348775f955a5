#!/usr/bin/env bash
# Delay scheduling's effect (bench/frameworks/run.sh locality): JOBS
# concurrent streaming jobs (default 6) whose maps take MAP_SECONDS (0.5),
# each over about BLOCKS blocks (14) of 20 KB with one copy, placed round-robin over the
# four nodes, all submitted at once to one JobTracker; once with
# --locality_wait=0 and once with --locality_wait=WAIT (5). Prints the share
# of node-local map attempts and the median job time of each.
set -euo pipefail
: "${MESOS_MASTER:?}" "${MESOS_NODES:?}" "${DEMO_DIR:?}" "${BUILD_DIR:?}"
dfs="$BUILD_DIR/frameworks/dfs/mesos-dfs"
mapreduce="$BUILD_DIR/frameworks/mapreduce/mesos-mapreduce"
export MESOS_DFS_ROOT="$DEMO_DIR/dfs"
jobs=${JOBS:-6} blocks=${BLOCKS:-14} map_seconds=${MAP_SECONDS:-0.5} wait=${WAIT:-5}

# About 20 KB a block: lines of the generator are about 40 bytes.
for job in $(seq "$jobs"); do
  "$dfs" generate --output="$DEMO_DIR/in-$job.txt" --answers=/dev/null \
    --lines=$((blocks * 500)) --seed="$job" > /dev/null
  "$dfs" put "$DEMO_DIR/in-$job.txt" "/bench/in-$job" --nodes="$MESOS_NODES" \
    --replication=1 --block_size=20000 > /dev/null
done

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

measure() {  # measure <locality wait> <label>
  local port tracker pid ids=()
  port=$(free_port)
  "$mapreduce" jobtracker --master="$MESOS_MASTER" --ip=127.0.0.1 --port="$port" \
    --locality_wait="$1" > "$DEMO_DIR/jobtracker-$2.log" 2>&1 &
  pid=$!
  tracker="127.0.0.1:$port"
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  for job in $(seq "$jobs"); do
    ids+=("$("$mapreduce" submit --jobtracker="$tracker" --job=streaming \
      --map_command="sleep $map_seconds; cat" --input="/bench/in-$job" \
      --output="$DEMO_DIR/out-$2-$job" | sed -n 1p)")
  done
  for id in "${ids[@]}"; do
    "$mapreduce" wait "$id" --jobtracker="$tracker" --json --timeout=600 | tail -n 1
  done > "$DEMO_DIR/reports-$2.json"
  kill "$pid"; wait "$pid" || true
  python3 - "$DEMO_DIR/reports-$2.json" "$2" <<'PY'
import json, statistics, sys
reports = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
label = sys.argv[2]
local = sum(r["locality"]["node_local"] for r in reports)
total = sum(r["locality"]["node_local"] + r["locality"]["rack_local"] + r["locality"]["remote"]
            for r in reports)
failed = [r for r in reports if r.get("state") != "succeeded"]
print(f"mapreduce_jobs_failed_{label}: {len(failed)} jobs")
print(f"mapreduce_node_local_{label}: {100.0 * local / max(total, 1):.1f} %")
print(f"mapreduce_map_attempts_{label}: {total} attempts")
print(f"mapreduce_job_s_median_{label}: {statistics.median(r['seconds'] for r in reports):.2f} s")
PY
}

measure 0 wait0
measure "$wait" "wait$wait"
