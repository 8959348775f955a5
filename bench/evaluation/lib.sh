#!/usr/bin/env bash
# Shared by the experiments of scripts/evaluate.sh (bench/evaluation/*.sh).
# Each experiment runs with BUILD_DIR (the build tree), OUT (its own empty
# directory) and QUICK (1: the small version) set, and leaves in OUT:
#   figures.txt   `name: value unit` lines, the numbers docs/evaluation.md quotes
#   setup.txt     `name: value` lines saying what ran (sizes, time scale,
#                 what was emulated), quoted beside the figures
#   *.png         its plots (drawn with gnuplot)
#   logs          whatever else it kept (raw outputs)
# and exits non-zero when it could not produce its figures.
: "${BUILD_DIR:?}" "${OUT:?}" "${QUICK:?}"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# figure NAME VALUE UNIT: one line of figures.txt.
figure() { echo "$1: $2 $3" >>"$OUT/figures.txt"; }
# setup NAME VALUE...: one line of setup.txt.
setup() {
  local name=$1
  shift
  echo "$name: $*" >>"$OUT/setup.txt"
}
# The median of the numbers on stdin, one a line ("nan" when none).
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan";
    else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# value FILE NAME: the value of `NAME: value unit` in FILE ("nan" when absent).
value() { awk -v n="$2:" '$1 == n { v = $2 } END { print (v == "") ? "nan" : v }' "$1"; }
# free_port [IP]: a TCP port free on IP (default 127.0.0.1).
free_port() {
  python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1],0)); print(s.getsockname()[1])' \
    "${1:-127.0.0.1}"
}
# await SECONDS COMMAND...: until COMMAND succeeds, or fails after SECONDS.
await() {
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}
# listening PORT: whether something accepts connections on 127.0.0.1:PORT.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# What every experiment says about the machine it ran on.
machine_setup() {
  setup machine "$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
  setup load_before "$(cut -d' ' -f1-3 /proc/loadavg)"
}
# on_cluster FRAMEWORK SCRIPT: on scripts/demo.sh's local cluster already
# (MESOS_MASTER set), returns; otherwise starts that cluster with SCRIPT
# running on it (FRAMEWORK: the demo whose binaries it checks), and exits
# with SCRIPT's status once the cluster is stopped.
on_cluster() {
  [ -z "${MESOS_MASTER:-}" ] || return 0
  machine_setup
  local status=0
  DEMO_SKIP_BUILD=1 DEMO_RUN="$2" "$HERE/scripts/demo.sh" "$1" >"$OUT/cluster.log" 2>&1 || status=$?
  [ "$status" -eq 0 ] || tail -n 20 "$OUT/cluster.log" >&2
  setup load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
  exit "$status"
}
# plot_header PNG TITLE: the lines every plot's gnuplot script starts with.
plot_header() {
  printf 'set terminal pngcairo size 800,500 font "sans,11"\nset output "%s"\nset title "%s"\n' "$1" "$2"
}
# The lines of a clustered bar chart (histogram_style), after plot_header.
histogram_style() {
  printf '%s\n' "set style data histograms" "set style histogram clustered gap 1" \
    "set style fill solid 0.8 border -1"
}
