#!/usr/bin/env bash
# The MPI demo (scripts/demo.sh mpi): pi by numerical integration on 4 ranks,
# gang-scheduled by mesos-mpirun over the demo's slaves, then the ring test.
# Exits 0 only when pi is right to 10 decimals and the ring's token is right.
set -euo pipefail
programs="$BUILD_DIR/frameworks/mpi"
out="$DEMO_DIR/mpi-pi.out"

echo "== mesos-mpirun -n 4 mesos-mpi-pi (nodes: $MESOS_NODES)"
"$programs/mesos-mpirun" --master="$MESOS_MASTER" -n 4 --cpus_per_rank=1 --mem_per_rank=128 \
  --timeout=60 "$programs/mesos-mpi-pi" 100000000 | tee "$out"
value=$(sed -n 's/^pi = \([0-9.]*\) .*/\1/p' "$out")
if [ -z "$value" ]; then
  echo "demo: the job printed no value of pi" >&2
  exit 1
fi
if ! python3 -c "import math, sys; sys.exit(0 if abs($value - math.pi) < 1e-10 else 1)"; then
  echo "demo: pi = $value is wrong (expected $(python3 -c 'import math; print(math.pi)'))" >&2
  exit 1
fi
nodes=$(sed -n 's/^rank [0-9]* of 4 on node \(.*\)$/\1/p' "$out" | sort -u | tr '\n' ' ')
echo "== pi = $value, correct to 10 decimals; ranks ran on: $nodes"

echo "== mesos-mpirun -n 4 mesos-mpi-ring 10"
"$programs/mesos-mpirun" --master="$MESOS_MASTER" -n 4 --mem_per_rank=128 --timeout=60 \
  "$programs/mesos-mpi-ring" 10 | tee "$DEMO_DIR/mpi-ring.out"
grep -q "^ring: 4 ranks, 10 laps, token 100 (expected 100): ok$" "$DEMO_DIR/mpi-ring.out"
echo "== ring correct"
