# Shell helpers of the web UI tests (webui_test.sh, webui_image_test.sh),
# sourced after they set $tmp (their scratch directory, whose *.log files
# fail() prints) and $chromium.

fail() {
  echo "FAIL: $*" >&2
  for log in "$tmp"/*.log; do echo "== $log" >&2; tail -n 20 "$log" >&2; done
  exit 1
}

# Polls `command` every 0.2 s until it succeeds, for at most `seconds`.
wait_for() {
  local seconds=$1; shift
  local deadline=$((SECONDS + seconds))
  until "$@" > /dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}

# A TCP port free on `ip` (default 127.0.0.1).
free_port() {
  python3 -c 'import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' \
    "${1:-127.0.0.1}"
}

# GETs `url` (or sends `method`, from a page of `origin`): the body on
# stdout; with `head`, the status and the headers (names in lower case) into
# that file. Fails unless 2xx.
#   get <url> [head] [method] [origin]
get() {
  python3 - "$@" <<'PY'
import sys, urllib.request
url, head = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
method = sys.argv[3] if len(sys.argv) > 3 else "GET"
origin = sys.argv[4] if len(sys.argv) > 4 else ""
headers = {"Origin": origin} if origin else {}
if method == "OPTIONS":
    headers["Access-Control-Request-Method"] = "GET"
try:
    with urllib.request.urlopen(urllib.request.Request(url, method=method, headers=headers), timeout=10) as r:
        body = r.read()
        if head:
            with open(head, "w") as out:
                out.write("%d\n" % r.status + "".join("%s: %s\n" % (k.lower(), v) for k, v in r.headers.items()))
        sys.stdout.buffer.write(body)
except Exception as e:
    sys.exit("%s: %s" % (url, e))
PY
}

# A JSON value from stdin: json_get 'expression of d' (python).
json_get() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

# Loads `url` in headless Chromium and writes its DOM to `out`, after the
# page's own fetches and timers have run (virtual time).
browse() {
  local url=$1 out=$2; shift 2
  timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$tmp/profile-$RANDOM" \
    --virtual-time-budget=10000 "$@" "$url" > "$out" 2> "$tmp/chromium.log"
}

# Loads `url` until its DOM holds every one of the given strings (the page
# reaches the cluster over real TCP: a few tries are allowed).
expect_page() {
  local url=$1 out=$2; shift 2
  local missing
  for _ in 1 2 3; do
    browse "$url" "$out" --dump-dom || true
    missing=""
    for text in "$@"; do grep -qF -- "$text" "$out" || missing="$missing '$text'"; done
    [ -z "$missing" ] && return 0
  done
  fail "$url: the page lacks$missing (DOM in $out:
$(sed -e 's/<[^>]*>/ /g' "$out" | tr -s ' \n' | cut -c1-2000))"
}
