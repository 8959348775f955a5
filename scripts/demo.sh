#!/usr/bin/env bash
# Runs a small job of one of the bundled frameworks end to end on a local
# cluster and exits 0 only when its result is correct:
#
#   scripts/demo.sh mapreduce|mpi|torque|spark
#
# It builds what is missing, starts mesos-master and four mesos-slave
# processes (nodes 127.0.0.2 to 127.0.0.5, each its own "machine": its own
# address and hostname, in racks r1 r1 r2 r2; DEMO_SLAVES=N starts N, the
# first half in rack r1, the rest in r2; each has cpus:2;mem:1024;disk:4096,
# or DEMO_RESOURCES), and runs frameworks/<name>/demo.sh
# with MESOS_MASTER, MESOS_NODES ("host:rack,..."), DEMO_DIR (scratch) and
# BUILD_DIR (the build tree) set. Everything it started is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-}
case "$name" in
  mapreduce|mpi|torque|spark) ;;
  *) echo "usage: scripts/demo.sh mapreduce|mpi|torque|spark" >&2; exit 2 ;;
esac
# DEMO_SKIP_BUILD=1: BUILD_DIR is built already (the tests that run the demos).
[ "${DEMO_SKIP_BUILD:-0}" = 1 ] || scripts/build.sh
build=$(cd "${BUILD_DIR:-build}" && pwd)
demo=$(mktemp -d /tmp/mesos-demo.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$demo"
}
trap cleanup EXIT

free_port() {  # a port free on the address $1
  python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1],0)); print(s.getsockname()[1])' "$1"
}
port=$(free_port 127.0.0.1)
# The frameworks run their tasks as this script's user, root included: a
# master runs tasks as root only when a run_tasks ACL names root.
acls='{"run_tasks": [{"principals": {"type": "ANY"}, "users": {"values": ["root"]}}]}'
"$build/src/master/mesos-master" --ip=127.0.0.1 --port="$port" --work_dir="$demo/master" \
  --acls="$acls" > "$demo/master.log" 2>&1 &
pids+=($!)
nodes=""
slaves=${DEMO_SLAVES:-4}
[[ "$slaves" =~ ^[0-9]+$ ]] && [ "$slaves" -ge 1 ] && [ "$slaves" -le 200 ] ||
  { echo "demo: DEMO_SLAVES must be 1 to 200" >&2; exit 2; }
for i in $(seq 0 $((slaves - 1))); do
  ip=127.0.0.$((i + 2))
  rack=r$((i * 2 / slaves + 1))
  "$build/src/slave/mesos-slave" --master="127.0.0.1:$port" --ip="$ip" --hostname="$ip" \
    --port="$(free_port "$ip")" --work_dir="$demo/slave-$ip" --attributes="rack:$rack" \
    --resources="${DEMO_RESOURCES:-cpus:2;mem:1024;disk:4096}" > "$demo/slave-$ip.log" 2>&1 &
  pids+=($!)
  nodes="${nodes:+$nodes,}$ip:$rack"
done

for _ in $(seq 300); do
  active=$(curl -sf "http://127.0.0.1:$port/metrics/snapshot" |
    python3 -c 'import json,sys; print(int(json.load(sys.stdin).get("master/slaves_active",0)))' \
    2>/dev/null || echo 0)
  [ "$active" -ge "$slaves" ] && break
  sleep 0.1
done
if [ "${active:-0}" -lt "$slaves" ]; then
  echo "demo: the cluster did not come up; logs in $demo" >&2
  tail -n 20 "$demo"/*.log >&2
  trap - EXIT; exit 1
fi
echo "== cluster up: master 127.0.0.1:$port, slaves $nodes"

export MESOS_MASTER="127.0.0.1:$port" MESOS_NODES="$nodes" DEMO_DIR="$demo" BUILD_DIR="$build"
# DEMO_RUN runs another script on the cluster (bench/frameworks/run.sh).
if "${DEMO_RUN:-frameworks/$name/demo.sh}"; then
  echo "== demo $name: result correct"
else
  status=$?
  echo "== demo $name: FAILED (exit $status); logs in $demo kept" >&2
  trap - EXIT
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  exit 1
fi
