#!/usr/bin/env bash
# The torque demo (run by scripts/demo.sh torque, which starts the cluster
# and sets MESOS_MASTER, MESOS_NODES, DEMO_DIR and BUILD_DIR): starts
# mesos-torque-server, submits a one-node job and a two-node job, waits for
# them, checks their outputs and exit statuses, shows mesos-qstat, and
# checks that the idle nodes are given back. Exits 0 only when all is right.
set -euo pipefail
: "${MESOS_MASTER:?}" "${MESOS_NODES:?}" "${DEMO_DIR:?}" "${BUILD_DIR:?}"
bin="$BUILD_DIR/frameworks/torque"
work="$DEMO_DIR/torque"
mkdir -p "$work"
cd "$work"

fail() {
  echo "torque demo: $*" >&2
  echo "--- server log ---" >&2
  tail -n 30 "$work/server.log" >&2 || true
  exit 1
}

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin/mesos-torque-server" --master="$MESOS_MASTER" --ip=127.0.0.1 --port="$port" \
  --node_cpus=1 --node_mem=128 --idle_timeout=2 > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
export MESOS_TORQUE_URL="127.0.0.1:$port"

status() { curl -sf --max-time 5 "http://$MESOS_TORQUE_URL/status" || true; }
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
for _ in $(seq 300); do
  [ "$(status | field 'd.get("registered", False)' 2>/dev/null)" = "True" ] && break
  kill -0 $server 2>/dev/null || fail "the server exited"
  sleep 0.1
done
[ "$(status | field 'd.get("registered", False)' 2>/dev/null)" = "True" ] ||
  fail "the server did not register within 30 s"
echo "== mesos-torque-server on $MESOS_TORQUE_URL (master $MESOS_MASTER)"

cat > sum.sh <<'EOF'
#!/bin/sh
#PBS -N sum
#PBS -l nodes=1:ppn=1,walltime=00:01:00
total=0
i=1
while [ $i -le 1000 ]; do total=$((total + i)); i=$((i + 1)); done
echo "$total"
EOF
cat > pair.sh <<'EOF'
#!/bin/sh
# A two-node job: its node file names both nodes; it runs on the first.
sort -u "$PBS_NODEFILE"
echo "np=$PBS_NP" >&2
EOF

sum=$("$bin/mesos-qsub" sum.sh)
pair=$("$bin/mesos-qsub" -N pair -l nodes=2:ppn=1 -l walltime=00:01:00 pair.sh)
echo "== submitted job $sum (sum, 1 node) and job $pair (pair, 2 nodes)"
"$bin/mesos-qstat"

for id in "$sum" "$pair"; do
  state=""
  for _ in 1 2 3; do
    state=$(curl -sf "http://$MESOS_TORQUE_URL/jobs/$id/wait?timeout=30" | field 'd["state"]')
    [ "$state" = C ] && break
  done
  [ "$state" = C ] || fail "job $id did not complete within 90 s"
done
echo "== both jobs completed"
"$bin/mesos-qstat"
"$bin/mesos-qstat" -B

exit_of() { curl -sf "http://$MESOS_TORQUE_URL/jobs/$1" | field 'd.get("exit_status")'; }
[ "$(exit_of "$sum")" = 0 ] || fail "job $sum exited with $(exit_of "$sum")"
[ "$(exit_of "$pair")" = 0 ] || fail "job $pair exited with $(exit_of "$pair")"

got=$(cat "sum.o$sum")
echo "== sum.o$sum: $got"
[ "$got" = 500500 ] || fail "sum.o$sum holds '$got', not 500500"

hosts=$(cat "pair.o$pair")
echo "== pair.o$pair (its PBS_NODEFILE):"
echo "$hosts" | sed 's/^/   /'
echo "== pair.e$pair: $(cat "pair.e$pair")"
[ "$(echo "$hosts" | wc -l)" = 2 ] || fail "pair.o$pair does not name two nodes"
known=$(echo "$MESOS_NODES" | tr ',' '\n' | cut -d: -f1)
for host in $hosts; do
  grep -qx "$host" <<< "$known" || fail "$host is not a node of the cluster"
done
[ "$(cat "pair.e$pair")" = "np=2" ] || fail "pair.e$pair does not say np=2"

for _ in $(seq 300); do
  [ "$(status | field 'd["held"]["nodes"]')" = 0 ] && break
  sleep 0.1
done
held=$(status | field 'd["held"]["nodes"]')
echo "== idle nodes given back: the server holds $held node(s) now"
[ "$held" = 0 ] || fail "the server still holds $held idle node(s)"
echo "== torque demo: outputs and exit statuses correct"
