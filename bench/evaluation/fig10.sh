#!/usr/bin/env bash
# Fig. 10 of the paper (§6.5, scalability): the overhead a framework sees
# in launching a task (its probe's start time beyond its ideal) against the
# number of slaves, with 200 busy frameworks keeping the cluster loaded.
# bench/fig10 runs a real mesos-master and real scheduler drivers; the
# slaves are emulated (bench/fig10/slaves.cpp: the slave's protocol,
# executors and tasks simulated), as the paper emulated them with 99 EC2
# nodes. Tasks are shortened by --time_scale.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ "$QUICK" = 1 ]; then
  sizes=(200 1000 5000)
  runs=1
  frameworks=20
  flags=(--frameworks_per_process=10 --time_scale=0.02 --probes=2 --busy_target=0.5
    --saturation_timeout_s=30 --max_runtime_s=60)
else
  sizes=(1000 10000 20000 50000)
  runs=1
  frameworks=200
  flags=(--probes=5 --time_scale=1)
fi
machine_setup
setup slaves "${sizes[*]} (emulated)"
setup frameworks "$frameworks (real scheduler drivers)"
setup flags "${flags[*]}"
setup runs_per_size "$runs"
FIG10="$BUILD_DIR/bench/fig10/fig10" "$HERE/bench/fig10/sweep.sh" "$OUT/runs" "$runs" "${sizes[@]}" -- \
  --master_binary="$BUILD_DIR/src/master/mesos-master" --frameworks="$frameworks" "${flags[@]}" \
  2>"$OUT/sweep.log"
FIG10_TITLE="Figure 10: probe overhead against cluster size ($frameworks frameworks)" \
  "$HERE/bench/fig10/plot.sh" "$OUT/fig10.png" "$OUT"/runs/*.txt 2>>"$OUT/sweep.log"
for slaves in "${sizes[@]}"; do
  for name in probe_overhead_p50_s probe_overhead_p99_s tasks_launched_per_s master_peak_rss_mb; do
    v=$(for run in "$OUT"/runs/fig10-"$slaves"-*.txt; do value "$run" "$name"; done | grep -v nan | median)
    unit=s
    case $name in tasks_launched_per_s) unit=tasks/s ;; master_peak_rss_mb) unit=MB ;; esac
    figure "${name}_${slaves}" "$v" "$unit"
  done
  ok=$(grep -l '^status: ok' "$OUT"/runs/fig10-"$slaves"-*.txt 2>/dev/null | wc -l)
  figure "runs_ok_${slaves}" "$ok" "runs"
done
setup load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
