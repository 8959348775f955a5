#!/usr/bin/env bash
# Installs, builds and starts a local cluster (mesos-local: a master and two
# slaves in one process) with the example framework (frameworks/test) running
# on it. The cluster keeps running after the framework finishes, until
# Ctrl-C. PORT (default 5050) and NUM_TASKS (default 10) change the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
build=${BUILD_DIR:-build}
port=${PORT:-5050}
work=$(mktemp -d /tmp/mesos-local.XXXXXX)

"$build/src/local/mesos-local" --ip=127.0.0.1 --port="$port" --num_slaves=2 \
  --work_dir="$work" 2> "$work/mesos-local.log" &
cluster=$!
trap 'kill $cluster 2>/dev/null; wait $cluster 2>/dev/null; rm -rf "$work"' EXIT

for _ in $(seq 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  kill -0 $cluster 2>/dev/null || { cat "$work/mesos-local.log" >&2; exit 1; }
  sleep 0.1
done
echo "== mesos-local is up: http://127.0.0.1:$port/master/state (log: $work/mesos-local.log)"

echo "== running the example framework (frameworks/test) on it"
"$build/frameworks/test/test-framework" --master="127.0.0.1:$port" \
  --num_tasks="${NUM_TASKS:-10}" --task_seconds=1

echo "== the cluster keeps running; try:"
echo "   $build/src/cli/mesos-execute --master=127.0.0.1:$port --name=hello --command='echo hello'"
echo "   Ctrl-C stops it."
wait $cluster
