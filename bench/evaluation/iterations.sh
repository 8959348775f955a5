#!/usr/bin/env bash
# Fig. 9 of the paper (§6.4): logistic regression's running time against
# its number of iterations, Spark-style (the points parsed once and kept in
# the executors' memory) against Hadoop-style (read and parsed again every
# iteration: mesos-spark-lr --no-cache). Runs on scripts/demo.sh's local
# cluster (a master and four slave processes, each its own address, the
# points in its block store with two copies).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
on_cluster spark "$0"
if [ "$QUICK" = 1 ]; then points=20000 iterations=5; else points=1000000 iterations=30; fi
setup cluster "1 master and 4 slave processes on this machine (2 cpus, 1 GB each)"
setup points "$points of dimension 10 ($((points * 97 / 1000000)) MB of text), 8 partitions, 2 copies"
setup iterations "$iterations"
lr="$BUILD_DIR/frameworks/spark/mesos-spark-lr"
root="$DEMO_DIR/spark-store"
"$lr" generate --root="$root" --file=/eval/points --nodes="$MESOS_NODES" --points="$points" \
  --dims=10 --block_size=$((points * 97 / 8 + 1)) --replication=2 >/dev/null
for mode in cached reread; do
  flags=()
  [ "$mode" = reread ] && flags=(--no-cache)
  "$lr" run --master="$MESOS_MASTER" --root="$root" --file=/eval/points \
    --iterations="$iterations" "${flags[@]}" >"$OUT/$mode.log"
  # Cumulative running time after each iteration (seconds).
  awk '$1 == "iteration" { total += $3 / 1000; printf "%d %.3f %.3f\n", $2 + 0, total, $3 / 1000 }' \
    "$OUT/$mode.log" >"$OUT/$mode.dat"
  [ "$(wc -l <"$OUT/$mode.dat")" -eq "$iterations" ] || {
    echo "iterations: $mode: $(wc -l <"$OUT/$mode.dat") of $iterations iterations" >&2
    exit 1
  }
  figure "${mode}_first_iteration_s" "$(sed -n 1p "$OUT/$mode.dat" | cut -d' ' -f3)" s
  figure "${mode}_later_iteration_s_median" "$(sed 1d "$OUT/$mode.dat" | cut -d' ' -f3 | median)" s
  figure "${mode}_total_s" "$(tail -n 1 "$OUT/$mode.dat" | cut -d' ' -f2)" s
done
gnuplot <<GNUPLOT
$(plot_header "$OUT/iterations.png" "Figure 9: logistic regression, running time against iterations")
set xlabel "iterations"
set ylabel "running time: the iterations' sum (s)"
set yrange [0:*]
set xtics $([ "$iterations" -le 10 ] && echo 1 || echo 5)
set grid
set key top left
plot "$OUT/reread.dat" using 1:2 with linespoints lw 2 pt 7 title "re-read every iteration (Hadoop-style)", \
     "$OUT/cached.dat" using 1:2 with linespoints lw 2 pt 5 title "cached in memory (Spark-style)"
GNUPLOT
