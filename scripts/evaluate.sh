#!/usr/bin/env bash
# Reproduces the paper's evaluation on this machine and writes the page that
# shows it, docs/evaluation.md, with its plots in docs/evaluation/:
#
#   scripts/evaluate.sh [--quick] [--out=DIR] [--only=NAME,...]
#
#   --quick   the small version of every experiment (a few minutes): the
#             figures show that each experiment works, not what it measures
#   --out     where evaluation.md and evaluation/ go (default: docs); the
#             runs' raw outputs go to DIR/evaluation/data
#   --only    run only these experiments (macrobenchmark, overhead, locality,
#             iterations, fig10, failover, short_tasks); the page still shows
#             the others as an earlier run in the same DIR left them
#
# Each experiment is bench/evaluation/NAME.sh (what it runs and at what
# scale is written at its top); bench/evaluation/report.py writes the page
# from their outputs. A progress line per experiment goes to the terminal.
# It builds what is missing first (EVALUATE_SKIP_BUILD=1: BUILD_DIR is built
# already). Exits non-zero when an experiment failed; the page is written
# anyway, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
out=docs
only=""
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --out=*) out=${arg#--out=} ;;
    --only=*) only=${arg#--only=} ;;
    *)
      echo "usage: scripts/evaluate.sh [--quick] [--out=DIR] [--only=NAME,...]" >&2
      exit 2
      ;;
  esac
done
experiments=(macrobenchmark overhead locality iterations fig10 failover short_tasks)
if [ -n "$only" ]; then
  IFS=, read -r -a chosen <<<"$only"
  for name in "${chosen[@]}"; do
    [ -x "bench/evaluation/$name.sh" ] || {
      echo "evaluate: no experiment '$name' (known: ${experiments[*]})" >&2
      exit 2
    }
  done
  experiments=("${chosen[@]}")
fi

[ "${EVALUATE_SKIP_BUILD:-0}" = 1 ] || scripts/build.sh
command -v gnuplot >/dev/null || scripts/install-deps.sh
build=$(cd "${BUILD_DIR:-build}" && pwd)
mkdir -p "$out/evaluation"
# Each experiment's directory is made afresh; with --only, the others'
# (an earlier run's) stay, and the page shows them too.
data="$out/evaluation/data"
mkdir -p "$data"
data=$(cd "$data" && pwd)

failed=()
total=${#experiments[@]}
index=0
for name in "${experiments[@]}"; do
  index=$((index + 1))
  dir="$data/$name"
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "evaluate: [$index/$total] $name: running$([ "$quick" = 1 ] && echo ' (quick)')" >&2
  start=$(date +%s)
  if BUILD_DIR="$build" OUT="$dir" QUICK="$quick" "bench/evaluation/$name.sh" \
    >"$dir/stdout.log" 2>"$dir/stderr.log"; then
    result=done
  else
    result="FAILED (exit $?; $dir/stderr.log)"
    touch "$dir/FAILED"
    failed+=("$name")
  fi
  for png in "$dir"/*.png; do
    [ -e "$png" ] && cp "$png" "$out/evaluation/"
  done
  echo "evaluate: [$index/$total] $name: $result in $(($(date +%s) - start)) s" >&2
done

python3 bench/evaluation/report.py "$data" "$out/evaluation.md" evaluation \
  "$([ "$quick" = 1 ] && echo quick || echo full)"
echo "evaluate: wrote $out/evaluation.md and its plots in $out/evaluation/" >&2
if [ ${#failed[@]} -gt 0 ]; then
  echo "evaluate: failed: ${failed[*]}" >&2
  exit 1
fi
