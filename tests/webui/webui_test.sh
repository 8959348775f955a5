#!/usr/bin/env bash
# The master's web UI in a real browser (docs/web-ui.md). Starts a master
# and a slave as separate daemons (so the slave is another origin, as in a
# real cluster), runs mesos-execute with a task that writes a known line
# into a sandbox file and keeps running, then loads the UI's pages in
# headless Chromium and checks the rendered DOM: the framework's name, the
# task's state TASK_RUNNING, and the sandbox file's content, read by the page
# from the slave's /files. Screenshots are kept in <build dir>/tests/webui/.
#
#   webui_test.sh <build dir>
# Exits 77 (skipped) when /usr/bin/chromium is missing.
set -euo pipefail
build=$(cd "$1" && pwd)
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "SKIP: $chromium is missing (install the Debian package chromium)"
  exit 77
fi
artifacts="$build/tests/webui"
mkdir -p "$artifacts"
tmp=$(mktemp -d /tmp/mesos-webui-test.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
source "$(dirname "$0")/lib.sh"

# Its tasks run as root, which a master allows only by a run_tasks rule
# naming root (docs/security.md, "Running as root").
export MESOS_ACLS='{"run_tasks": [{"principals": {"type": "ANY"}, "users": {"values": ["root"]}}]}'
master_port=$(free_port)
slave_port=$(free_port)
master="127.0.0.1:$master_port"
# One event stream at a time: a new subscriber closes the oldest stream
# (the live part below ends the page's stream that way).
"$build/src/master/mesos-master" --ip=127.0.0.1 --port="$master_port" \
  --max_operator_event_stream_subscribers=1 > "$tmp/master.log" 2>&1 &
pids+=($!)
"$build/src/slave/mesos-slave" --ip=127.0.0.1 --port="$slave_port" --master="$master" \
  --work_dir="$tmp/slave" --launcher_dir="$build/src/exec" --resources='cpus:2;mem:1024' \
  > "$tmp/slave.log" 2>&1 &
pids+=($!)

slaves_registered() {
  [ "$(get "http://$master/state-summary" | json_get 'len(d["slaves"])')" = 1 ]
}
wait_for 30 slaves_registered || fail "the slave did not register within 30 s"

# The UI's own routes: prebuilt files with their types.
get "http://$master/" "$tmp/index.head" > "$tmp/index.html" || fail "GET / failed"
grep -qi '^content-type: text/html' "$tmp/index.head" || fail "/ is not text/html: $(cat "$tmp/index.head")"
grep -q 'static/app.js' "$tmp/index.html" || fail "/ does not load static/app.js"
for file in static/app.js static/app.css static/bootstrap.min.css static/chart.min.js; do
  get "http://$master/$file" > /dev/null || fail "GET /$file failed"
done
cmp -s "$tmp/index.html" <(get "http://$master/master/") || fail "/master/ differs from /"

"$build/src/cli/mesos-execute" --master="$master" --name=webui-task \
  --framework_name='webui test framework' --resources='cpus:0.5;mem:64' \
  --command='echo "the sandbox says 4242-webui" > marker.txt; exec sleep 300' \
  > "$tmp/execute.log" 2>&1 &
pids+=($!)

task_running() {
  [ "$(get "http://$master/tasks?task_id=webui-task" |
       json_get 'd["tasks"][0]["state"] if d["tasks"] else ""')" = TASK_RUNNING ]
}
wait_for 30 task_running || fail "the task was not TASK_RUNNING within 30 s"
framework=$(get "http://$master/tasks?task_id=webui-task" | json_get 'd["tasks"][0]["framework_id"]')

# The slave answers CORS to the page (the master's origin), and to no other.
origin="http://$master"
slave_state=$(get "http://127.0.0.1:$slave_port/slave(1)/state" "$tmp/slave-state.head" GET "$origin") ||
  fail "the slave's /state did not answer"
grep -qi "^access-control-allow-origin: $origin\$" "$tmp/slave-state.head" ||
  fail "the slave's /state does not allow the master's origin: $(cat "$tmp/slave-state.head")"
get "http://127.0.0.1:$slave_port/slave(1)/state" "$tmp/elsewhere.head" GET http://elsewhere > /dev/null ||
  fail "the slave's /state did not answer another origin"
! grep -qi '^access-control-allow-origin' "$tmp/elsewhere.head" ||
  fail "the slave's /state allows another origin: $(cat "$tmp/elsewhere.head")"
directory=$(echo "$slave_state" | json_get '[e["directory"] for f in d["frameworks"] for e in f["executors"]][0]')
marker_written() { grep -q 4242-webui "$directory/marker.txt"; }
wait_for 30 marker_written || fail "the task did not write $directory/marker.txt"
get "http://127.0.0.1:$slave_port/files/read?path=$directory/marker.txt&offset=0" "$tmp/read.head" \
  GET "$origin" > /dev/null ||
  fail "the slave's /files/read did not answer"
grep -qi "^access-control-allow-origin: $origin\$" "$tmp/read.head" ||
  fail "the slave's /files/read does not allow the master's origin"
get "http://127.0.0.1:$slave_port/files/browse?path=$directory" "$tmp/preflight.head" OPTIONS \
  "$origin" > /dev/null || fail "the slave's /files/browse refused a preflight"
preflight=$(sed -n 1p "$tmp/preflight.head")
[ "$preflight" = 204 ] || fail "the slave's preflight answer was $preflight, not 204"

ui="http://$master/"
expect_page "${ui}#/frameworks" "$artifacts/frameworks.html" 'webui test framework' "$framework"
# The task's row of the framework's task table, in TASK_RUNNING.
expect_page "${ui}#/frameworks/$framework" "$artifacts/framework.html" '<h1 id="title">webui test framework</h1>' \
  '<tr><td class="mono">webui-task</td><td>webui-task</td><td><span class="state TASK_RUNNING">TASK_RUNNING</span>'
# The chart's history grows while the page polls (its note goes once it
# holds two samples), when Chart.js was there at build time.
chart_note='<div id="chart-note" class="muted small"></div>'
chart_js=$(get "http://$master/static/chart.min.js")
if [[ "${chart_js:0:200}" != *Chart.js* ]]; then
  chart_note='No chart: Chart.js (libjs-chart.js) was not installed'
fi
expect_page "${ui}#/" "$artifacts/overview.html" '<span class="state TASK_RUNNING">TASK_RUNNING</span>' \
  'Allocation, last hour' "$chart_note" '<td>webui-task</td><td><a href="#/frameworks/'
# The same page at /master/, where it fetches its JSON relative to that path
# (/master/metrics/snapshot, /master/state-summary, ...).
expect_page "http://$master/master/#/" "$artifacts/overview-under-master.html" \
  '<span class="state TASK_RUNNING">TASK_RUNNING</span>' 'Allocation, last hour' "$chart_note"
if grep -q 'Cannot reach the master' "$artifacts/overview-under-master.html"; then
  fail "/master/ says it cannot reach the master: $(grep -o 'Cannot reach[^<]*' \
    "$artifacts/overview-under-master.html")"
fi
slave=$(get "http://$master/state-summary" | json_get 'd["slaves"][0]["id"]')
expect_page "${ui}#/slaves" "$artifacts/slaves.html" "$slave" '0.5 / 2'
expect_page "${ui}#/slaves/$slave" "$artifacts/slave.html" "slave(1)@127.0.0.1:$slave_port" \
  'webui test framework' 'webui-task' 'TASK_RUNNING' 'sandbox'
expect_page "${ui}#/roles" "$artifacts/roles.html" 'Satisfiable' '<td>*</td>'
expect_page "${ui}#/sandbox?framework=$framework&task=webui-task" "$artifacts/sandbox.html" \
  'marker.txt' 'stdout' "$directory"
expect_page "${ui}#/sandbox?framework=$framework&task=webui-task&file=marker.txt" \
  "$artifacts/sandbox-file.html" '<pre class="file" id="file">the sandbox says 4242-webui' \
  '<span class="state TASK_RUNNING">TASK_RUNNING</span>'

for page in "#/:overview" "#/frameworks/$framework:framework" \
            "#/sandbox?framework=$framework&task=webui-task&file=marker.txt:sandbox"; do
  browse "$ui${page%:*}" /dev/null --screenshot="$artifacts/${page##*:}.png" --window-size=1280,900 \
    --hide-scrollbars || true
  [ -s "$artifacts/${page##*:}.png" ] || fail "no screenshot of $ui${page%:*}"
done

# Maintenance (docs/maintenance.md): once the slave's machine is in the
# schedule, the slaves page shows the window and the machine's mode.
slave_host=$(get "http://$master/state-summary" | json_get 'd["slaves"][0]["hostname"]')
python3 - "http://$master/maintenance/schedule" "$slave_host" <<'PY' || fail "POST /maintenance/schedule failed"
import json, sys, urllib.request
window = {"machine_ids": [{"hostname": sys.argv[2], "ip": "127.0.0.1"}],
          "unavailability": {"start": {"nanoseconds": 4102444800 * 10**9},
                             "duration": {"nanoseconds": 3600 * 10**9}}}
body = json.dumps({"windows": [window]}).encode()
urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=body, method="POST"), timeout=10)
PY
expect_page "${ui}#/slaves" "$artifacts/slaves-maintenance.html" 'Maintenance schedule' \
  '<td class="maintenance">DRAINING' "$slave_host 127.0.0.1 (DRAINING)"

# Live (docs/web-ui.md, "Live or polling"): the overview follows the
# master's event stream; a task launched after the page loaded shows up
# TASK_RUNNING in its active tasks without the page asking /state-summary
# or /tasks again, and its counts agree with /state-summary's, also after
# a short task and its framework have come and gone. Then mesos-ps --watch subscribes, and the master (one
# stream at most) closes the page's: the page polls, subscribes again
# (closing mesos-ps's stream: it exits 1) and is live again. On real time
# through the DevTools protocol (live_page.py): an open stream never lets
# virtual time settle.
python3 "$(dirname "$0")/live_page.py" --chromium "$chromium" --profile "$tmp/profile-live" \
  --url "${ui}#/" --out "$artifacts/overview-live.html" --task live-task \
  --then "'$build/src/cli/mesos-execute' --master='$master' --name=short-task --framework_name=short \
          --resources='cpus:0.25;mem:32' --command=true" \
  --intruder "exec '$build/src/cli/mesos-ps' --master='$master' --watch" -- \
  "$build/src/cli/mesos-execute" --master="$master" --name=live-task \
  --framework_name='live test framework' --resources='cpus:0.25;mem:32' --command='exec sleep 300' ||
  fail "the overview did not follow the event stream"

# A master that asks credentials of /api/v1 only (--authenticate_http_readwrite):
# the page polls, saying why, and prompts for nothing (a prompt would hold
# headless Chromium until its timeout).
printf 'operator secret\n' > "$tmp/credentials"
guarded_port=$(free_port)
"$build/src/master/mesos-master" --ip=127.0.0.1 --port="$guarded_port" --authenticate_http_readwrite \
  --http_credentials="$tmp/credentials" > "$tmp/guarded.log" 2>&1 &
pids+=($!)
guarded_serves() { get "http://127.0.0.1:$guarded_port/metrics/snapshot"; }
wait_for 30 guarded_serves || fail "the master with --authenticate_http_readwrite did not serve within 30 s"
expect_page "http://127.0.0.1:$guarded_port/#/" "$artifacts/overview-polling.html" \
  'asks credentials of /api/v1 (--authenticate_http_readwrite)' '>polling</span>' \
  '<div class="label">Slaves</div><div class="value">0</div>'

# A standby's UI names the leader and links there: two masters elected in a
# real ZooKeeper (Debian's zookeeper, run by a JRE), when it is installed.
zk_classpath=/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar
if [ ! -x /usr/bin/java ] || [ ! -f /usr/share/java/zookeeper.jar ] ||
   [ ! -f /usr/share/java/slf4j-simple.jar ]; then
  echo "SKIP (standby part): no ZooKeeper (Debian packages zookeeper, libslf4j-java, default-jre-headless)"
else
  zk_port=$(free_port)
  mkdir -p "$tmp/zk/data"
  printf 'tickTime=100\ndataDir=%s\nclientPort=%s\nclientPortAddress=127.0.0.1\n' \
    "$tmp/zk/data" "$zk_port" > "$tmp/zk/zoo.cfg"
  /usr/bin/java -cp "$zk_classpath" org.apache.zookeeper.server.quorum.QuorumPeerMain \
    "$tmp/zk/zoo.cfg" > "$tmp/zookeeper.log" 2>&1 &
  pids+=($!)
  zk_serves() { (exec 3<>"/dev/tcp/127.0.0.1/$zk_port"); }
  wait_for 30 zk_serves || fail "ZooKeeper did not listen within 30 s"
  leader_port=$(free_port)
  standby_port=$(free_port)
  "$build/src/master/mesos-master" --ip=127.0.0.1 --port="$leader_port" \
    --zk="zk://127.0.0.1:$zk_port/mesos" --quorum=1 > "$tmp/leader.log" 2>&1 &
  pids+=($!)
  elected() { [ "$(get "http://127.0.0.1:$1/metrics/snapshot" | json_get 'd["master/elected"]')" = "$2" ]; }
  wait_for 30 elected "$leader_port" 1 || fail "the first master was not elected within 30 s"
  "$build/src/master/mesos-master" --ip=127.0.0.1 --port="$standby_port" \
    --zk="zk://127.0.0.1:$zk_port/mesos" --quorum=1 > "$tmp/standby.log" 2>&1 &
  pids+=($!)
  knows_leader() {
    [[ "$(get "http://127.0.0.1:$standby_port/state" | json_get 'd.get("leader", "")')" == *":$leader_port" ]]
  }
  wait_for 30 knows_leader || fail "the standby did not learn the leader within 30 s"
  expect_page "http://127.0.0.1:$standby_port/#/" "$artifacts/standby.html" \
    'is a standby' "master@127.0.0.1:$leader_port" "http://127.0.0.1:$leader_port/#/" 'id="leader-link"' \
    'not the leader)">polling</span>'
fi

echo "PASS: the UI shows the framework, its running task and its sandbox file," \
     "the maintenance schedule and modes; a standby's UI names the leader; screenshots in $artifacts"
