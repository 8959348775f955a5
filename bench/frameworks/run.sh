#!/usr/bin/env bash
# Benchmarks of the bundled frameworks on the demo's local cluster (a master
# and four slaves on 127.0.0.2-5, racks r1 r1 r2 r2, started by
# scripts/demo.sh), printing figures as `name: value unit` lines:
#
#   bench/frameworks/run.sh locality     # mesos-mapreduce: delay scheduling's node-local share
#   bench/frameworks/run.sh iterations   # mesos-spark-lr: first against later iterations
#   bench/frameworks/run.sh gang         # mesos-mpirun against plain mpiexec
#
# Settings through the environment (defaults in each script). Figures and
# the commands that made them: docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
case "${1:-}" in
  locality) framework=mapreduce ;;
  iterations) framework=spark ;;
  gang) framework=mpi ;;
  *) echo "usage: bench/frameworks/run.sh locality|iterations|gang" >&2; exit 2 ;;
esac
DEMO_RUN="bench/frameworks/$1.sh" exec scripts/demo.sh "$framework"
