#!/usr/bin/env bash
# §6.2 of the paper (framework overhead): the same MPI job alone on bare
# processes (MPICH's mpiexec) and on the cluster (mesos-mpirun: a gang of
# offers, the ranks' proxies launched as tasks, then the same mpiexec), each
# RUNS times, from start to exit; the overhead is the median's difference.
# The job is the pi example (frameworks/mpi/examples/pi.cpp), 2 ranks, its
# work sized to take seconds. Runs on scripts/demo.sh's local cluster. The
# paper's second job, Hadoop WordCount alone against on Mesos, needs a
# MapReduce that runs without Mesos, which ours does not have yet.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
on_cluster mpi "$0"
if [ "$QUICK" = 1 ]; then runs=2 intervals=200000000; else runs=5 intervals=20000000000; fi
ranks=2
setup cluster "1 master and 4 slave processes on this machine (2 cpus, 1 GB each)"
setup job "mesos-mpi-pi over $intervals intervals, $ranks ranks (1 cpu each), $runs runs each way"
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
bare=$(cut -d' ' -f2 "$OUT/overhead.dat" | median)
mesos=$(cut -d' ' -f3 "$OUT/overhead.dat" | median)
figure mpi_bare_s_median "$bare" s
figure mpi_mesos_s_median "$mesos" s
figure mpi_overhead_s "$(awk -v b="$bare" -v m="$mesos" 'BEGIN { printf "%.3f", m - b }')" s
figure mpi_overhead_pct "$(awk -v b="$bare" -v m="$mesos" 'BEGIN { printf "%.1f", 100 * (m - b) / b }')" %
gnuplot <<GNUPLOT
$(plot_header "$OUT/overhead.png" "§6.2: an MPI job alone and through Mesos ($runs runs each)")
$(histogram_style)
set xlabel "run"
set ylabel "job time, start to exit (s)"
set yrange [0:*]
set grid y
set key top left
plot "$OUT/overhead.dat" using 2:xtic(1) title "mpiexec alone" lc rgb "dark-blue", \
     "" using 3 title "mesos-mpirun on the cluster" lc rgb "dark-red"
GNUPLOT
