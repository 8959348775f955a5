#!/usr/bin/env bash
# The master's web UI over HTTPS in headless Chromium (docs/security.md,
# "TLS"). Makes a test CA and a certificate for 127.0.0.1 with openssl,
# starts a master and a slave with LIBPROCESS_SSL_* (TLS, no downgrade,
# servers verified), runs a task with mesos-execute over TLS, and loads the
# UI at https://127.0.0.1:<port>/ in Chromium trusting the test CA (put in
# the NSS database of a scratch $HOME with certutil): the framework's page
# shows the task TASK_RUNNING. A plain http:// load gets nothing.
#
#   webui_tls_test.sh <build dir>
# Exits 77 (skipped) without chromium, openssl or certutil.
set -euo pipefail
build=$(cd "$1" && pwd)
chromium=${CHROMIUM:-/usr/bin/chromium}
for tool in "$chromium" openssl certutil; do
  if ! command -v "$tool" > /dev/null; then
    echo "SKIP: $tool is missing (Debian packages chromium, openssl, libnss3-tools)"
    exit 77
  fi
done
artifacts="$build/tests/webui"
mkdir -p "$artifacts"
tmp=$(mktemp -d /tmp/mesos-webui-tls.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
# fail, wait_for, free_port (lib.sh's get and browse are plain HTTP; this
# test's own, below, trust the test CA).
. "$(dirname "$0")/lib.sh"

# The test CA and the node's certificate.
(
  cd "$tmp"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
    -out ca.crt -days 3 -subj /CN=mesos-webui-test-ca \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=keyCertSign,cRLSign
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout node.key \
    -out node.csr -subj /CN=localhost
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' > node.ext
  openssl x509 -req -in node.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out node.crt \
    -days 3 -extfile node.ext
) > "$tmp/openssl.log" 2>&1 || fail "openssl could not make the certificates"

export LIBPROCESS_SSL_ENABLED=true
export LIBPROCESS_SSL_CERT_FILE="$tmp/node.crt"
export LIBPROCESS_SSL_KEY_FILE="$tmp/node.key"
export LIBPROCESS_SSL_CA_FILE="$tmp/ca.crt"
export LIBPROCESS_SSL_VERIFY_CERT=true
export LIBPROCESS_SSL_VERIFY_IPADD=true
export LIBPROCESS_IP=127.0.0.1

# Python's client, trusting the test CA.
get() {
  python3 - "$1" "$tmp/ca.crt" <<'PY'
import ssl, sys, urllib.request
context = ssl.create_default_context(cafile=sys.argv[2])
with urllib.request.urlopen(sys.argv[1], timeout=10, context=context) as r:
    sys.stdout.buffer.write(r.read())
PY
}

# Its tasks run as root, which a master allows only by a run_tasks rule
# naming root (docs/security.md, "Running as root").
export MESOS_ACLS='{"run_tasks": [{"principals": {"type": "ANY"}, "users": {"values": ["root"]}}]}'
master_port=$(free_port)
slave_port=$(free_port)
master="127.0.0.1:$master_port"
"$build/src/master/mesos-master" --ip=127.0.0.1 --port="$master_port" > "$tmp/master.log" 2>&1 &
pids+=($!)
"$build/src/slave/mesos-slave" --ip=127.0.0.1 --port="$slave_port" --master="$master" \
  --work_dir="$tmp/slave" --launcher_dir="$build/src/exec" --resources='cpus:2;mem:1024' \
  > "$tmp/slave.log" 2>&1 &
pids+=($!)
slaves_registered() {
  [ "$(get "https://$master/state-summary" | json_get 'len(d["slaves"])')" = 1 ]
}
wait_for 60 slaves_registered || fail "the slave did not register over TLS within 60 s"

"$build/src/cli/mesos-execute" --master="$master" --name=tls-task \
  --framework_name='tls test framework' --resources='cpus:0.5;mem:64' \
  --command='exec sleep 300' > "$tmp/execute.log" 2>&1 &
pids+=($!)
task_running() {
  [ "$(get "https://$master/tasks?task_id=tls-task" |
       json_get 'd["tasks"][0]["state"] if d["tasks"] else ""')" = TASK_RUNNING ]
}
wait_for 60 task_running || fail "the task was not TASK_RUNNING over TLS within 60 s"
framework=$(get "https://$master/tasks?task_id=tls-task" | json_get 'd["tasks"][0]["framework_id"]')

# Plain HTTP on the TLS port: refused (no downgrade).
if python3 -c "import urllib.request; urllib.request.urlopen('http://$master/health', timeout=5)" \
     > /dev/null 2>&1; then
  fail "a plain http:// request was answered without LIBPROCESS_SSL_SUPPORT_DOWNGRADE"
fi

# Chromium trusts the test CA through the NSS database of its $HOME.
home="$tmp/home"
mkdir -p "$home/.pki/nssdb"
certutil -d "sql:$home/.pki/nssdb" -N --empty-password
certutil -d "sql:$home/.pki/nssdb" -A -t "C,," -n mesos-webui-test-ca -i "$tmp/ca.crt"

browse() {
  local url=$1 out=$2; shift 2
  HOME="$home" timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$tmp/profile-$RANDOM" \
    --virtual-time-budget=10000 "$@" "$url" > "$out" 2> "$tmp/chromium.log"
}
expected='<span class="state TASK_RUNNING">TASK_RUNNING</span>'
out="$artifacts/tls-framework.html"
for _ in 1 2 3; do
  browse "https://$master/#/frameworks/$framework" "$out" --dump-dom || true
  grep -qF "tls test framework" "$out" && grep -qF "$expected" "$out" && break
done
grep -qF "tls test framework" "$out" && grep -qF "$expected" "$out" ||
  fail "https://$master/: the framework's page lacks its name or the running task (DOM in $out:
$(sed -e 's/<[^>]*>/ /g' "$out" | tr -s ' \n' | cut -c1-1500))"
browse "https://$master/#/frameworks/$framework" /dev/null \
  --screenshot="$artifacts/tls-framework.png" --window-size=1280,900 || true
echo "PASS: the UI over https shows the framework and its running task; screenshot in $artifacts"
