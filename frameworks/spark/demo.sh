#!/usr/bin/env bash
# The spark demo (run by scripts/demo.sh spark, which sets MESOS_MASTER,
# MESOS_NODES, DEMO_DIR and BUILD_DIR): writes 500,000 points of dimension 10
# (about 48 MB, 8 blocks, 2 copies each) with known true weights into a
# block store, trains logistic regression on them with in-memory partitions
# and again with --no-cache, prints the per-iteration times of both, and
# exits 0 only when the accuracy is within a point of the true weights',
# the weights are near the true ones, and both runs found the same weights.
set -euo pipefail
: "${MESOS_MASTER:?}" "${MESOS_NODES:?}" "${DEMO_DIR:?}" "${BUILD_DIR:?}"
lr="$BUILD_DIR/frameworks/spark/mesos-spark-lr"
root="$DEMO_DIR/spark-store"
iterations=${SPARK_DEMO_ITERATIONS:-20}

echo "== generating the dataset"
"$lr" generate --root="$root" --file=/spark/points --nodes="$MESOS_NODES" \
  --points="${SPARK_DEMO_POINTS:-500000}" --dims=10 --block_size=6200000 --replication=2

echo "== training, partitions cached in the executors' memory"
"$lr" run --master="$MESOS_MASTER" --root="$root" --file=/spark/points \
  --iterations="$iterations" | tee "$DEMO_DIR/spark-cached.log"

echo "== training again with --no-cache (read and parse every iteration, as Hadoop would)"
"$lr" run --master="$MESOS_MASTER" --root="$root" --file=/spark/points \
  --iterations="$iterations" --no-cache | tee "$DEMO_DIR/spark-nocache.log"

field() {  # field <log> <prefix>: the rest of the line that starts with prefix
  sed -n "s/^$2//p" "$1" | sed -n 1p
}
accuracy=$(field "$DEMO_DIR/spark-cached.log" "accuracy: " | awk '{print $1}')
reference=$(field "$DEMO_DIR/spark-cached.log" "accuracy: " |
  sed 's/.*true weights: \([0-9.]*\).*/\1/')
distance=$(field "$DEMO_DIR/spark-cached.log" "distance to the true weights: " | awk '{print $1}')
cached=$(field "$DEMO_DIR/spark-cached.log" "weights: ")
uncached=$(field "$DEMO_DIR/spark-nocache.log" "weights: ")

echo
echo "== per-iteration times (ms): cached / no-cache"
paste <(sed -n 's/^iteration \([0-9]*\): \([0-9.]*\) ms.*/\1 \2/p' "$DEMO_DIR/spark-cached.log") \
      <(sed -n 's/^iteration [0-9]*: \([0-9.]*\) ms.*/\1/p' "$DEMO_DIR/spark-nocache.log") |
  awk '{printf "  iteration %2d: %9.1f  %9.1f\n", $1, $2, $3}'
echo "cached:   $(field "$DEMO_DIR/spark-cached.log" "later iterations: ")"
echo "no-cache: $(field "$DEMO_DIR/spark-nocache.log" "later iterations: ")"
echo "accuracy $accuracy (true weights: $reference), distance to the true weights $distance"

ok=1
if ! awk -v a="$accuracy" -v r="$reference" 'BEGIN { exit !(a > 0.8 && a >= r - 0.01) }'; then
  echo "spark demo: accuracy $accuracy is not within 0.01 of the true weights' $reference" >&2
  ok=0
fi
if ! awk -v d="$distance" 'BEGIN { exit !(d >= 0 && d < 0.1) }'; then
  echo "spark demo: the weights are $distance from the true ones (want < 0.1)" >&2
  ok=0
fi
if [ "$cached" != "$uncached" ]; then
  echo "spark demo: the cached and --no-cache runs found different weights" >&2
  ok=0
fi
[ "$ok" = 1 ]
