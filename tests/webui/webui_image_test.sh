#!/usr/bin/env bash
# The framework view's Image and Addresses columns (docs/web-ui.md) in
# headless Chromium, for a real task in the Mesos containerizer.
#
#   webui_image_test.sh <build dir> image
#     A master and a slave (--isolation=filesystem/linux,docker/runtime,
#     --image_providers=docker, --docker_registry=a directory of `docker
#     save` tarballs) as separate processes; mesos-execute runs a task from
#     a Docker image made here of busybox-static (/bin/busybox), and the
#     framework's page shows the image's name in the task's Image column,
#     as the master's /state names it; the task really runs in the image
#     (it copies the image's /etc/os-release into its sandbox).
#
#   webui_image_test.sh <build dir> cni
#     The same with network/cni: everything (daemons, tasks, Chromium) runs
#     in a network namespace the test makes, the daemons on an address of
#     its loopback; Debian's bridge and host-local plugins (/usr/lib/cni)
#     put the task's container on a bridge in that namespace, and its
#     Addresses column shows its address on the network, as the master's
#     /state gives it (statuses[].container_status.network_infos), which is
#     the address the container has (the task writes `ip -4 addr` into its
#     sandbox). No packet leaves the namespaces the test makes.
#
# Needs root. Exits 77 (skipped), saying what is missing, without chromium,
# busybox-static, the CNI plugins, ip or nsenter. Removes all it made
# (processes, mounts, the namespace with its bridge) on every exit. The
# DOMs are left in <build dir>/tests/webui/.
set -euo pipefail
build=$(cd "$1" && pwd)
mode=${2:-image}
chromium=${CHROMIUM:-/usr/bin/chromium}
cni_plugins=/usr/lib/cni
skip() { echo "SKIP: $*"; exit 77; }
case "$mode" in image | cni) ;; *) echo "usage: $0 <build dir> image|cni" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || skip "not root (the containerizer's mounts and namespaces need it)"
[ -x "$chromium" ] || skip "$chromium is missing (install the Debian package chromium)"
[ -x /bin/busybox ] && /bin/busybox --list > /dev/null 2>&1 ||
  skip "/bin/busybox is missing (the test image is made of it: Debian's busybox-static)"
# A dynamic busybox would need its libraries in the image.
if command -v ldd > /dev/null && ldd /bin/busybox > /dev/null 2>&1; then
  skip "/bin/busybox is not static (the test image needs Debian's busybox-static)"
fi
for tool in tar sha256sum python3; do
  command -v "$tool" > /dev/null || skip "no '$tool' on the PATH"
done
if [ "$mode" = cni ]; then
  for plugin in bridge host-local; do
    [ -x "$cni_plugins/$plugin" ] ||
      skip "no CNI plugin $cni_plugins/$plugin (Debian's containernetworking-plugins)"
  done
  for tool in ip nsenter; do
    command -v "$tool" > /dev/null || skip "no '$tool' on the PATH (Debian's iproute2, util-linux)"
  done
fi
source "$(dirname "$0")/lib.sh"

# The CNI mode runs this script again inside its network namespace
# (WEBUI_NETNS set); the outer run owns $tmp and the namespace and removes
# them.
inner=${WEBUI_NETNS:+yes}
if [ -n "$inner" ]; then
  tmp=$WEBUI_TMP
else
  tmp=$(mktemp -d /tmp/mesos-webui-image.XXXXXX)
fi
artifacts="$build/tests/webui"
mkdir -p "$artifacts"
pids=()
execute_pid=""

# The slave's containers: each has a directory here while it lives.
containers_gone() { [ -z "$(ls -A "$tmp/slave/provisioner/containers" 2>/dev/null)" ]; }

# The processes started here, and what outlived them (found by $tmp in
# their environment: executors have their sandbox there).
stop_processes() {
  # Ending the framework makes the master kill its task, and the slave
  # destroy the container (its mounts, its network namespace).
  if [ -n "$execute_pid" ]; then
    kill "$execute_pid" 2>/dev/null || true
    wait "$execute_pid" 2>/dev/null || true
    wait_for 30 containers_gone || echo "cleanup: containers left after 30 s: $(ls "$tmp/slave/provisioner/containers")" >&2
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  local environ pid
  for environ in $(grep -slF -- "$tmp/" /proc/[0-9]*/environ); do
    pid=${environ#/proc/}; pid=${pid%/environ}
    [ "$pid" = $$ ] && continue
    echo "cleanup: killing $pid, left by the test: $(tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline")" >&2
    kill -9 "$pid" 2>/dev/null || true
  done
}

# Whatever is still mounted under $tmp, deepest first (a bounded number
# of tries: a mount that will not go is left to rm's error).
unmount_all() {
  local point
  for _ in $(seq 100); do
    point=$(awk -v dir="$tmp" '$5 == dir || index($5, dir "/") == 1 { print $5 }' /proc/self/mountinfo |
            sort -r | head -n 1)
    [ -n "$point" ] || return 0
    umount -l "$point" 2>/dev/null || true
  done
}

netns=""
inner_pid=""
cleanup() {
  local status=$?
  set +e
  if [ -n "$inner_pid" ]; then
    kill -TERM "$inner_pid" 2>/dev/null
    wait "$inner_pid" 2>/dev/null
  fi
  stop_processes
  if [ -z "$inner" ]; then
    if [ -n "$netns" ]; then
      for pid in $(ip netns pids "$netns" 2>/dev/null); do
        echo "cleanup: killing $pid, left in $netns" >&2
        kill -9 "$pid" 2>/dev/null
      done
      ip netns del "$netns" 2>/dev/null
    fi
    unmount_all
    rm -rf "$tmp"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$mode" = cni ] && [ -z "$inner" ]; then
  netns="mesos-webui-$$"
  ip netns add "$netns" || skip "cannot make a network namespace"
  ip -n "$netns" link set lo up || fail "cannot set lo up in $netns"
  # The daemons' address: on the namespace's loopback, so that the
  # containers reach it through the bridge's gateway (their default route).
  ip -n "$netns" addr add 10.252.70.1/32 dev lo || fail "cannot add the daemons' address in $netns"
  # (In the background, so that a signal here reaches the cleanup at once;
  # the cleanup stops the inner run first.)
  WEBUI_NETNS=$netns WEBUI_TMP=$tmp nsenter --net="/run/netns/$netns" bash "$0" "$@" &
  inner_pid=$!
  status=0
  wait "$inner_pid" || status=$?
  inner_pid=""
  exit "$status"
fi

ip=127.0.0.1
[ "$mode" = cni ] && ip=10.252.70.1

# The image: one layer of busybox-static with the applets the task uses, an
# /etc/os-release naming it, as `docker save` writes it, in the tarball
# directory the slave pulls from (<dir>/<name>:<tag>.tar).
image=webui/busybox:shown
registry="$tmp/registry"
(
  set -e
  cd "$tmp"
  mkdir -p layer/bin layer/etc image "$registry/webui"
  cp /bin/busybox layer/bin/busybox
  for applet in sh cp cat ip sleep; do ln -s busybox "layer/bin/$applet"; done
  printf 'NAME="mesos web UI test image"\nID=webui-test-image\n' > layer/etc/os-release
  tar -C layer -cf layer.tar .
  digest=$(sha256sum layer.tar | cut -d' ' -f1)
  mkdir "image/$digest"
  mv layer.tar "image/$digest/layer.tar"
  arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
  printf '{"architecture":"%s","os":"linux","config":{},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$arch" "$digest" > image/config.json
  printf '[{"Config":"config.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' \
    "$image" "$digest" > image/manifest.json
  tar -C image -cf "$registry/$image.tar" .
  rm -rf layer image
) > "$tmp/image.log" 2>&1 || fail "could not make the test image"

slave_flags=(--isolation=filesystem/linux,docker/runtime --image_providers=docker
             --docker_registry="$registry" --docker_store_dir="$tmp/store")
execute_flags=(--docker_image="$image" --containerizer=mesos)
network=webui-net
if [ "$mode" = cni ]; then
  mkdir -p "$tmp/cni"
  cat > "$tmp/cni/webui.conf" <<EOF
{"cniVersion": "1.0.0", "name": "$network", "type": "bridge", "bridge": "mwebui0",
 "isGateway": true,
 "ipam": {"type": "host-local", "subnet": "10.252.71.0/24", "dataDir": "$tmp/ipam",
          "routes": [{"dst": "0.0.0.0/0"}]}}
EOF
  slave_flags=(--isolation=filesystem/linux,docker/runtime,network/cni --image_providers=docker
               --docker_registry="$registry" --docker_store_dir="$tmp/store"
               --network_cni_config_dir="$tmp/cni" --network_cni_plugins_dir="$cni_plugins"
               --network_cni_root_dir_persist)
  execute_flags+=(--networks="$network")
fi

# Its tasks run as root, which a master allows only by a run_tasks rule
# naming root (docs/security.md, "Running as root").
export MESOS_ACLS='{"run_tasks": [{"principals": {"type": "ANY"}, "users": {"values": ["root"]}}]}'
master_port=$(free_port "$ip")
slave_port=$(free_port "$ip")
master="$ip:$master_port"
"$build/src/master/mesos-master" --ip="$ip" --port="$master_port" > "$tmp/master.log" 2>&1 &
pids+=($!)
"$build/src/slave/mesos-slave" --ip="$ip" --port="$slave_port" --master="$master" \
  --work_dir="$tmp/slave" --launcher_dir="$build/src/exec" --resources='cpus:2;mem:1024;disk:1024' \
  "${slave_flags[@]}" > "$tmp/slave.log" 2>&1 &
pids+=($!)

slaves_registered() {
  [ "$(get "http://$master/state-summary" | json_get 'len(d["slaves"])')" = 1 ]
}
wait_for 30 slaves_registered || fail "the slave did not register within 30 s"

task=image-task
"$build/src/cli/mesos-execute" --master="$master" --name="$task" \
  --framework_name='webui image framework' --resources='cpus:0.5;mem:64' "${execute_flags[@]}" \
  --command='cp /etc/os-release "$MESOS_SANDBOX/inside.txt";
             ip -4 -o addr show > "$MESOS_SANDBOX/addresses.txt"; exec sleep 300' \
  > "$tmp/execute.log" 2>&1 &
execute_pid=$!

# The task in the master's /state: its framework, the image its container
# names, and its address on $network from its latest status that has one.
task_state() {
  get "http://$master/state" | python3 -c '
import json, sys
task, network = sys.argv[1], sys.argv[2]
for f in json.load(sys.stdin)["frameworks"]:
    for t in f["tasks"]:
        if t["id"] != task:
            continue
        image = t.get("container", {}).get("mesos", {}).get("image", {}).get("docker", {}).get("name", "")
        address = ""
        for s in t.get("statuses", []):
            for n in s.get("container_status", {}).get("network_infos", []):
                for a in n.get("ip_addresses", []):
                    if n.get("name") == network and a.get("ip_address"):
                        address = a["ip_address"]
        print(t["state"], t["framework_id"], image or "-", address or "-")
' "$task" "$network"
}
task_running() { [[ "$(task_state)" == TASK_RUNNING* ]]; }
wait_for 120 task_running ||
  fail "the task was not TASK_RUNNING within 120 s (master: $(task_state || true); $(tail -n 5 "$tmp/execute.log"))"
read -r state framework state_image state_address <<< "$(task_state)"
[ "$state_image" = "$image" ] || fail "the master's /state names the image '$state_image', not '$image'"

# It runs in the image: its sandbox holds the image's /etc/os-release.
directory=$(get "http://$ip:$slave_port/slave(1)/state" |
            json_get '[e["directory"] for f in d["frameworks"] for e in f["executors"]][0]')
copied() { grep -q '^ID=webui-test-image$' "$directory/inside.txt"; }
wait_for 30 copied || fail "the task did not copy the image's /etc/os-release into $directory/inside.txt"

if [ "$mode" = cni ]; then
  [ "$state_address" != - ] || fail "the master's /state has no address of the task on $network"
  [[ "$state_address" == 10.252.71.* ]] ||
    fail "the task's address $state_address is not in $network's subnet 10.252.71.0/24"
  # The container's own interfaces, as the task saw them.
  listed() { grep -qF " inet $state_address/24 " "$directory/addresses.txt"; }
  wait_for 30 listed || fail "the container does not have $state_address: $(cat "$directory/addresses.txt")"
fi

# The task's row of the framework's tasks table: each column's text by its
# header.
row_of() {
  python3 - "$1" "$task" <<'PY'
import html.parser, json, sys

class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.headers, self.rows, self.cell = [], [], None
    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.headers = []
        elif tag == "tr":
            self.row = []
        elif tag in ("th", "td"):
            self.cell = ""
    def handle_endtag(self, tag):
        if tag == "th" and self.cell is not None:
            self.headers.append(self.cell.strip())
            self.cell = None
        elif tag == "td" and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and getattr(self, "row", None):
            self.rows.append((list(self.headers), self.row))
    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

dom = Tables()
dom.feed(open(sys.argv[1]).read())
for headers, row in dom.rows:
    if row and row[0] == sys.argv[2] and "Image" in headers:
        print(json.dumps(dict(zip(headers[-len(row):], row))))
        break
PY
}

ui="http://$master/"
page="$artifacts/framework-$mode.html"
expect_page "${ui}#/frameworks/$framework" "$page" '<h1 id="title">webui image framework</h1>' \
  "<tr><td class=\"mono\">$task</td><td>$task</td><td><span class=\"state TASK_RUNNING\">TASK_RUNNING</span>"
row=$(row_of "$page")
[ -n "$row" ] || fail "no row of $task in the tasks table of $page"
shown_image=$(echo "$row" | json_get 'd["Image"]')
shown_addresses=$(echo "$row" | json_get 'd["Addresses"]')
[ "$shown_image" = "$image" ] ||
  fail "the Image column shows '$shown_image', not '$image' (row: $row)"
if [ "$mode" = cni ]; then
  [ "$shown_addresses" = "$state_address ($network)" ] ||
    fail "the Addresses column shows '$shown_addresses', not '$state_address ($network)' (row: $row)"
  echo "PASS: the framework's page shows $task from $image at $state_address on $network" \
       "(as the master's /state and the container say); DOM in $page"
else
  [ -z "$shown_addresses" ] ||
    fail "the Addresses column of a task on the host's network shows '$shown_addresses' (row: $row)"
  echo "PASS: the framework's page shows $task from $image (as the master's /state says); DOM in $page"
fi
