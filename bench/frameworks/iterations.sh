#!/usr/bin/env bash
# Iterative jobs with and without in-memory partitions (bench/frameworks/run.sh
# iterations): POINTS points (default 500,000, about 48 MB) of dimension 10
# in 8 blocks with two copies; ITERATIONS (20) iterations of logistic
# regression, cached and with --no-cache (re-read and re-parse each time, the
# Hadoop-style baseline of the paper's Fig. 9).
set -euo pipefail
: "${MESOS_MASTER:?}" "${MESOS_NODES:?}" "${DEMO_DIR:?}" "${BUILD_DIR:?}"
lr="$BUILD_DIR/frameworks/spark/mesos-spark-lr"
root="$DEMO_DIR/spark-store"
points=${POINTS:-500000} iterations=${ITERATIONS:-20}

"$lr" generate --root="$root" --file=/bench/points --nodes="$MESOS_NODES" \
  --points="$points" --dims=10 --block_size=$((points * 97 / 8 + 1)) --replication=2 > /dev/null
for mode in cached no-cache; do
  flags=()
  [ "$mode" = no-cache ] && flags=(--no-cache)
  "$lr" run --master="$MESOS_MASTER" --root="$root" --file=/bench/points \
    --iterations="$iterations" "${flags[@]}" > "$DEMO_DIR/$mode.log"
  python3 - "$DEMO_DIR/$mode.log" "${mode/-/_}" <<'PY'
import re, statistics, sys
times = [float(m.group(1)) for m in
         (re.match(r"iteration \d+: ([0-9.]+) ms", line) for line in open(sys.argv[1])) if m]
label = sys.argv[2]
later = statistics.median(times[1:])
print(f"spark_{label}_first_iteration_ms: {times[0]:.1f} ms")
print(f"spark_{label}_later_iteration_ms_median: {later:.1f} ms")
print(f"spark_{label}_first_over_later: {times[0] / later:.1f} x")
PY
done
