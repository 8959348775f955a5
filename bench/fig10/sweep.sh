#!/usr/bin/env bash
# Runs fig10 several times at each cluster size and keeps each run's output,
# for docs/benchmarks.md and plot.sh.
#
#   bench/fig10/sweep.sh OUT_DIR RUNS SLAVES... [-- FIG10_FLAGS...]
#
# e.g. bench/fig10/sweep.sh results 3 1000 10000 -- --probes=10
# writes OUT_DIR/fig10-<slaves>-<run>.txt: fig10's stdout plus the 1-minute
# load average before and after the run (loadavg_before:, loadavg_after:),
# and OUT_DIR/fig10-<slaves>-<run>.err (its progress). Runs one after the
# other; a run cut short (exit status 3) does not stop the sweep.
set -uo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 OUT_DIR RUNS SLAVES... [-- FIG10_FLAGS...]" >&2
  exit 1
fi
here=$(cd "$(dirname "$0")/../.." && pwd)
fig10=${FIG10:-$here/build/bench/fig10/fig10}
out=$1
runs=$2
shift 2
sizes=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  sizes+=("$1")
  shift
done
[ $# -gt 0 ] && shift
mkdir -p "$out"
for slaves in "${sizes[@]}"; do
  for run in $(seq 1 "$runs"); do
    file=$out/fig10-$slaves-$run
    before=$(cut -d' ' -f1 /proc/loadavg)
    "$fig10" --slaves="$slaves" "$@" >"$file.txt" 2>"$file.err"
    status=$?
    after=$(cut -d' ' -f1 /proc/loadavg)
    echo "loadavg_before: $before load" >>"$file.txt"
    echo "loadavg_after: $after load" >>"$file.txt"
    echo "sweep: $slaves slaves, run $run: exit $status, $(grep '^status:' "$file.txt")," \
         "p50 $(awk '$1 == "probe_overhead_p50_s:" { print $2 }' "$file.txt") s," \
         "load $before -> $after" >&2
  done
done
