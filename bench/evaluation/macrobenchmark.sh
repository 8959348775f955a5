#!/usr/bin/env bash
# §6.1 of the paper (Fig. 5, 6 and 7, Tables 3 and 4): four frameworks
# sharing one cluster under DRF against the same four each alone on a static
# quarter of it. The frameworks are ours, as processes: a MapReduce JobTracker
# running a Facebook-like mix (the paper's Table 2 bins, maps scaled down,
# exponential inter-arrival times), a second one running large jobs back to
# back, mesos-spark-lr jobs submitted apart, and mesos-torque-server running
# MPI-style jobs of two nodes of 2 cpus. What the tasks compute is time-scaled
# (maps and MPI jobs sleep); the scheduling is real. macrobenchmark.py runs
# both modes and writes the figures; this script draws them.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
machine_setup
python3 "$(dirname "$0")/macrobenchmark.py" "$BUILD_DIR" "$OUT" "$QUICK"
setup load_after "$(cut -d' ' -f1-3 /proc/loadavg)"

# Fig. 5/6: each framework's share of the cluster's cpus over time.
gnuplot <<GNUPLOT
set terminal pngcairo size 900,700 font "sans,11"
set output "$OUT/macrobenchmark.png"
set multiplot layout 2,1 title "Figures 5 and 6: each framework's share of the cluster (cpus)"
set ylabel "share of the cluster (%)"
set yrange [0:100]
set grid
set key top right
set title "static partitions (each framework on a quarter)"
plot for [i=2:5] "$OUT/shares-static.dat" using 1:i with lines lw 2 \
  title word("Facebook-mix large-jobs Spark Torque", i - 1)
set title "shared under DRF"
set xlabel "time (s)"
plot for [i=2:5] "$OUT/shares-shared.dat" using 1:i with lines lw 2 \
  title word("Facebook-mix large-jobs Spark Torque", i - 1)
unset multiplot
GNUPLOT

# Fig. 7: allocation and use over time, both modes.
gnuplot <<GNUPLOT
set terminal pngcairo size 900,700 font "sans,11"
set output "$OUT/utilization.png"
set multiplot layout 2,1 title "Figure 7: cluster allocation and use over time"
set grid
set key top right
set ylabel "cpus allocated (%)"
set yrange [0:105]
plot "$OUT/utilization-static.dat" using 1:2 with lines lw 2 title "static partitions", \
     "$OUT/utilization-shared.dat" using 1:2 with lines lw 2 title "shared"
set ylabel "cores used (of the machine's)"
set yrange [0:*]
set xlabel "time (s)"
plot "$OUT/utilization-static.dat" using 1:4 with lines lw 2 title "static partitions", \
     "$OUT/utilization-shared.dat" using 1:4 with lines lw 2 title "shared"
unset multiplot
GNUPLOT
