#!/usr/bin/env bash
# What gang scheduling through Mesos costs an MPI job (bench/frameworks/run.sh
# gang): RUNS (default 5) runs of `mesos-mpirun -n RANKS` (4) of the pi
# example, from start to exit (registration, gathering offers, mpiexec, the
# proxies' tasks, teardown), against plain `mpiexec -n RANKS` of the same
# program on this machine. Medians.
set -euo pipefail
: "${MESOS_MASTER:?}" "${BUILD_DIR:?}"
runs=${RUNS:-5} ranks=${RANKS:-4}
pi="$BUILD_DIR/frameworks/mpi/mesos-mpi-pi"
elapsed() {  # seconds the command takes
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { print e - s }'
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
for _ in $(seq "$runs"); do
  elapsed "$BUILD_DIR/frameworks/mpi/mesos-mpirun" --master="$MESOS_MASTER" -n "$ranks" "$pi"
done | median | awk '{printf "mpi_mesos_mpirun_s_median: %.3f s\n", $1}'
for _ in $(seq "$runs"); do
  elapsed mpiexec -n "$ranks" "$pi"
done | median | awk '{printf "mpi_plain_mpiexec_s_median: %.3f s\n", $1}'
