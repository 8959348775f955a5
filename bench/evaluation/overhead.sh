#!/usr/bin/env bash
# §6.2 of the paper (framework overhead): the same job alone on bare
# processes and on the cluster, each RUNS times, from start to exit; the
# overhead is the medians' difference. Two jobs, as the paper's:
#   MPI        the pi example (frameworks/mpi/examples/pi.cpp), 2 ranks: alone
#              with MPICH's mpiexec; on the cluster with mesos-mpirun (a gang
#              of offers, the ranks' proxies launched as tasks, then the same
#              mpiexec)
#   MapReduce  WordCount over generated text: alone with `mesos-mapreduce
#              local` (its maps and reduces on worker threads of one process,
#              as many as the cluster has slots); on the cluster with
#              `mesos-mapreduce run` (a JobTracker registering, TaskTrackers
#              launched as executors, every task through an offer)
# Each job's work is sized to take seconds. Runs on scripts/demo.sh's local
# cluster.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
on_cluster mpi "$0"
if [ "$QUICK" = 1 ]; then
  runs=2 intervals=200000000 lines=40000 block_size=400000
else
  runs=5 intervals=20000000000 lines=24000000 block_size=8000000
fi
ranks=2
slots=12  # what the JobTracker fits on the 4 slaves: 3 tasks of 0.5 cpu each
setup cluster "1 master and 4 slave processes on this machine (2 cpus, 1 GB each)"
setup job "mesos-mpi-pi over $intervals intervals, $ranks ranks (1 cpu each), $runs runs each way"
setup mapreduce_job "wordcount over $lines generated lines in blocks of $block_size bytes (one copy each; on the cluster no locality wait), 4 reduces, $slots slots each way, $runs runs each way"
pi="$BUILD_DIR/frameworks/mpi/mesos-mpi-pi"
elapsed() {  # seconds the command takes; fails with it
  local start end
  start=$(date +%s.%N)
  "$@" >>"$OUT/jobs.log" 2>&1 || return 1
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}
: >"$OUT/overhead.dat"
for run in $(seq "$runs"); do
  bare=$(elapsed mpiexec -n "$ranks" "$pi" "$intervals")
  mesos=$(elapsed "$BUILD_DIR/frameworks/mpi/mesos-mpirun" --master="$MESOS_MASTER" -n "$ranks" \
    "$pi" "$intervals")
  echo "$run $bare $mesos" >>"$OUT/overhead.dat"
done

# The MapReduce job: its input in the store, one copy of each block. Alone,
# each map reads as its block's holder; on the cluster the JobTracker takes
# any slot (no locality wait), so neither way waits for a local slot: every
# "node" reads from this machine's disk alike.
mapreduce="$BUILD_DIR/frameworks/mapreduce/mesos-mapreduce"
export MESOS_DFS_ROOT="$DEMO_DIR/dfs"
"$BUILD_DIR/frameworks/dfs/mesos-dfs" generate --output="$DEMO_DIR/words.txt" \
  --answers=/dev/null --lines="$lines" >/dev/null
"$BUILD_DIR/frameworks/dfs/mesos-dfs" put "$DEMO_DIR/words.txt" /eval/words --nodes="$MESOS_NODES" \
  --replication=1 --block_size="$block_size" >/dev/null
: >"$OUT/overhead-mapreduce.dat"
for run in $(seq "$runs"); do
  bare=$(elapsed "$mapreduce" local --slots="$slots" --job=wordcount --input=/eval/words \
    --output="$DEMO_DIR/local-$run" --reduces=4)
  mesos=$(elapsed "$mapreduce" run --master="$MESOS_MASTER" --locality_wait=0 --job=wordcount \
    --input=/eval/words --output="$DEMO_DIR/mesos-$run" --reduces=4)
  echo "$run $bare $mesos" >>"$OUT/overhead-mapreduce.dat"
  rm -rf "$DEMO_DIR/local-$run" "$DEMO_DIR/mesos-$run"
done
setup mapreduce_input "$("$BUILD_DIR/frameworks/dfs/mesos-dfs" stat /eval/words |
  awk '$1 == "length" { l = $2 } $1 == "blocks" { b = $2 } END { printf "%.0f MB, %d blocks (maps)", l / 1e6, b }')"

# overheads PREFIX DAT: the medians and the overhead of one job's runs.
overheads() {
  local bare mesos
  bare=$(cut -d' ' -f2 "$2" | median)
  mesos=$(cut -d' ' -f3 "$2" | median)
  figure "${1}_bare_s_median" "$bare" s
  figure "${1}_mesos_s_median" "$mesos" s
  figure "${1}_overhead_s" "$(awk -v b="$bare" -v m="$mesos" 'BEGIN { printf "%.3f", m - b }')" s
  figure "${1}_overhead_pct" \
    "$(awk -v b="$bare" -v m="$mesos" 'BEGIN { printf "%.1f", 100 * (m - b) / b }')" %
  # The runs' spread: the larger of the two ways' (slowest - fastest).
  figure "${1}_spread_s" "$(awk '{ for (c = 2; c <= 3; c++) { if (NR == 1 || $c < lo[c]) lo[c] = $c
      if (NR == 1 || $c > hi[c]) hi[c] = $c } }
    END { a = hi[2] - lo[2]; b = hi[3] - lo[3]; printf "%.3f", (a > b ? a : b) }' "$2")" s
}
overheads mpi "$OUT/overhead.dat"
overheads mapreduce "$OUT/overhead-mapreduce.dat"
gnuplot <<GNUPLOT
set terminal pngcairo size 900,500 font "sans,11"
set output "$OUT/overhead.png"
set multiplot layout 1,2 title "§6.2: jobs alone and through Mesos ($runs runs each)"
$(histogram_style)
set xlabel "run"
set ylabel "job time, start to exit (s)"
set yrange [0:*]
set grid y
set key top left
set title "MPI (pi, 2 ranks)"
plot "$OUT/overhead.dat" using 2:xtic(1) title "mpiexec alone" lc rgb "dark-blue", \
     "" using 3 title "mesos-mpirun" lc rgb "dark-red"
set title "MapReduce (wordcount)"
plot "$OUT/overhead-mapreduce.dat" using 2:xtic(1) title "local, alone" lc rgb "dark-blue", \
     "" using 3 title "on the cluster" lc rgb "dark-red"
unset multiplot
GNUPLOT
