#!/usr/bin/env bash
# §6.6 of the paper (failure recovery): how long the cluster takes to get
# over the loss of its leading master, against the number of slaves.
# bench/failover_bench runs a real ZooKeeper ensemble, real mesos-master
# processes (one leader, standbys), real scheduler drivers with running
# tasks, and emulated slaves (bench/fig10/slaves.cpp in ZooKeeper mode); it
# kills the leader with SIGKILL and times, from the kill, the election and
# the re-registration of every slave and framework (the paper's mean time to
# recovery: every slave and framework back).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ "$QUICK" = 1 ]; then
  sizes=(100 1000)
  flags=(--kills=1 --frameworks=2 --settle_s=0.5 --failover_timeout_s=30 --start_timeout_s=60)
  tasks_per_slave=2
else
  sizes=(100 1000 5000 10000)
  flags=(--kills=5 --frameworks=10)
  tasks_per_slave=2
fi
machine_setup
setup slaves "${sizes[*]} (emulated)"
setup tasks "$tasks_per_slave a slave, running when the leader is killed"
setup flags "${flags[*]} (two masters, three ZooKeeper servers, session timeout 500 ms)"
mkdir -p "$OUT/runs"
: >"$OUT/mttr.dat"
for slaves in "${sizes[@]}"; do
  run="$OUT/runs/failover-$slaves"
  status=0
  "$BUILD_DIR/bench/failover_bench" --slaves="$slaves" --tasks=$((slaves * tasks_per_slave)) \
    "${flags[@]}" >"$run.txt" 2>"$run.err" || status=$?
  echo "failover: $slaves slaves: exit $status, $(grep '^status:' "$run.txt" || echo 'no status')" >&2
  for name in elected_s slaves_reregistered_s frameworks_reregistered_s; do
    figure "${name}_median_${slaves}" "$(value "$run.txt" "${name}_median")" s
    figure "${name}_max_${slaves}" "$(value "$run.txt" "${name}_max")" s
  done
  # The paper's MTTR: everything back, the later of slaves and frameworks.
  mttr=$(awk -v a="$(value "$run.txt" slaves_reregistered_s_median)" \
    -v b="$(value "$run.txt" frameworks_reregistered_s_median)" \
    'BEGIN { if (a == "nan" || b == "nan") print "nan"; else print (a + 0 > b + 0) ? a : b }')
  figure "mttr_s_${slaves}" "$mttr" s
  echo "$slaves $(value "$run.txt" elected_s_median) $(value "$run.txt" slaves_reregistered_s_median)" \
    "$(value "$run.txt" frameworks_reregistered_s_median) $mttr" >>"$OUT/mttr.dat"
done
gnuplot <<GNUPLOT
$(plot_header "$OUT/failover.png" "§6.6: recovery from the leading master's kill against cluster size")
set xlabel "slaves"
set ylabel "seconds after the kill (median)"
set logscale x
set yrange [0:*]
set grid
set key top left
set datafile missing "nan"
plot "$OUT/mttr.dat" using 1:2 with linespoints lw 2 pt 7 title "new leader elected", \
     "" using 1:3 with linespoints lw 2 pt 5 title "every slave re-registered", \
     "" using 1:4 with linespoints lw 2 pt 9 title "every framework re-registered", \
     4 with lines dt 2 lc rgb "gray" title "paper: MTTR 4 to 8 s", \
     8 with lines dt 2 lc rgb "gray" notitle
GNUPLOT
setup load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
