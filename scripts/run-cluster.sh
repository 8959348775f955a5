#!/usr/bin/env bash
# Starts a local cluster (mesos-local: a master and --slaves slaves in one
# process) with the example framework (frameworks/test) running on it; the
# cluster keeps running after the framework finishes, until Ctrl-C. Installs
# and builds first, unless the build in ${BUILD_DIR:-build} is newer than
# every source file.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<EOF
Usage: scripts/run-cluster.sh [--port=PORT] [--tasks=N] [--slaves=N] [--build]

Installs what is missing and builds (skipped when the build in ${BUILD_DIR:-build}/
is current), starts mesos-local on 127.0.0.1, runs the example framework's
tasks on it, and keeps the cluster up until Ctrl-C.

  --port=PORT   the master's port (default 5050)
  --tasks=N     how many tasks the example framework runs (default 10)
  --slaves=N    how many slaves mesos-local starts (default 2)
  --build       install and build even when the build looks current
  --help        this text
EOF
}

port=${PORT:-5050}
tasks=${NUM_TASKS:-10}
slaves=2
force_build=false
for arg in "$@"; do
  case "$arg" in
    --port=*) port=${arg#--port=} ;;
    --tasks=*) tasks=${arg#--tasks=} ;;
    --slaves=*) slaves=${arg#--slaves=} ;;
    --build) force_build=true ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run-cluster.sh: unknown argument '$arg'" >&2; usage >&2; exit 1 ;;
  esac
done
for value in "$port" "$tasks" "$slaves"; do
  [[ "$value" =~ ^[0-9]+$ ]] ||
    { echo "run-cluster.sh: '$value' is not a number" >&2; usage >&2; exit 1; }
done
if [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
  echo "run-cluster.sh: --port=$port is not a port (1-65535)" >&2; exit 1
fi
[ "$slaves" -ge 1 ] || { echo "run-cluster.sh: --slaves must be at least 1" >&2; exit 1; }

build=${BUILD_DIR:-build}
programs=("$build/src/local/mesos-local" "$build/frameworks/test/test-framework"
          "$build/frameworks/test/test-executor" "$build/src/exec/mesos-executor")
# Current: every program is there, and no source or build file is newer
# than the oldest of them.
current() {
  local oldest=""
  for program in "${programs[@]}"; do
    [ -x "$program" ] || return 1
    if [ -z "$oldest" ] || [ "$program" -ot "$oldest" ]; then oldest=$program; fi
  done
  [ -z "$(find CMakeLists.txt cmake proto include src frameworks -newer "$oldest" \
           -type f -print -quit)" ]
}
if $force_build || ! current; then
  scripts/build.sh
fi

if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  echo "run-cluster.sh: something already listens on 127.0.0.1:$port (choose another --port)" >&2
  exit 1
fi
work=$(mktemp -d /tmp/mesos-local.XXXXXX)
# The example framework runs its tasks as the user running this script. A
# master runs tasks as root only when a run_tasks ACL names root: this one
# lets every framework do so (docs/security.md, "Running as root").
acls='{"run_tasks": [{"principals": {"type": "ANY"}, "users": {"values": ["root"]}}]}'
"$build/src/local/mesos-local" --ip=127.0.0.1 --port="$port" --num_slaves="$slaves" \
  --work_dir="$work" --acls="$acls" 2> "$work/mesos-local.log" &
cluster=$!
trap 'kill $cluster 2>/dev/null; wait $cluster 2>/dev/null; rm -rf "$work"' EXIT

for _ in $(seq 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  kill -0 $cluster 2>/dev/null || { cat "$work/mesos-local.log" >&2; exit 1; }
  sleep 0.1
done
echo "== mesos-local is up with $slaves slaves: http://127.0.0.1:$port/ (web UI)," \
     "http://127.0.0.1:$port/master/state (log: $work/mesos-local.log)"

echo "== running the example framework (frameworks/test) on it: $tasks tasks"
"$build/frameworks/test/test-framework" --master="127.0.0.1:$port" \
  --num_tasks="$tasks" --task_seconds=1

echo "== the cluster keeps running; try:"
echo "   $build/src/cli/mesos-execute --master=127.0.0.1:$port --name=hello --command='echo hello'"
echo "   $build/src/cli/mesos-ps --master=127.0.0.1:$port --all"
echo "   Ctrl-C stops it."
wait $cluster
