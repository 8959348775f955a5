#!/usr/bin/env bash
# EvaluateTest.QuickRunDrawsEveryFigureAndWritesThePage: scripts/evaluate.sh
# --quick on the build tree given, into a scratch directory. It checks the
# form of what the run made, not its values: every experiment finished,
# each has its figures (numbers, none missing) and a PNG that is one, and
# the page has each experiment's section linking its plot.
#
#   tests/evaluation/evaluate_quick_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/mesos-evaluate-test.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
if ! EVALUATE_SKIP_BUILD=1 BUILD_DIR="$build" scripts/evaluate.sh --quick --out="$out"; then
  for log in "$out"/evaluation/data/*/stderr.log; do
    echo "== $log" >&2
    tail -n 20 "$log" >&2
  done
  fail "scripts/evaluate.sh --quick failed"
fi
page="$out/evaluation.md"
[ -s "$page" ] || fail "no evaluation.md"
declare -A plot=([macrobenchmark]=macrobenchmark.png [overhead]=overhead.png [locality]=locality.png [iterations]=iterations.png [fig10]=fig10.png
  [failover]=failover.png [short_tasks]=short_tasks.png)
for name in macrobenchmark overhead locality iterations fig10 failover short_tasks; do
  data="$out/evaluation/data/$name"
  [ ! -e "$data/FAILED" ] || fail "$name failed"
  [ -s "$data/figures.txt" ] || fail "$name wrote no figures"
  [ -s "$data/setup.txt" ] || fail "$name did not say what ran"
  # Every figure a finite number with a unit.
  bad=$(awk 'NF < 3 || $2 !~ /^-?[0-9.]+(e-?[0-9]+)?$/' "$data/figures.txt")
  [ -z "$bad" ] || fail "$name: figures that are not numbers: $bad"
  png="$out/evaluation/${plot[$name]}"
  [ -s "$png" ] || fail "$name: no plot ${plot[$name]}"
  python3 - "$png" <<'PY' || fail "$name: ${plot[$name]} is not a PNG image of some size"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
width, height = struct.unpack(">II", data[16:24])
assert width >= 400 and height >= 300, (width, height)
assert data[-8:-4] == b"IEND"
PY
  grep -q "](evaluation/${plot[$name]})" "$page" || fail "the page does not show ${plot[$name]}"
done
for heading in "## §6.1" "## §6.2" "## Fig. 8" "## Fig. 9" "## Fig. 10" "## §6.6" "## Beyond the paper: short tasks" "## Not reproduced yet"; do
  grep -q "^$heading" "$page" || fail "the page has no section '$heading'"
done
! grep -q "This run failed" "$page" || fail "the page reports a failed run"
! grep -q "n/a" "$page" || fail "the page has missing figures: $(grep -n 'n/a' "$page")"
echo "evaluate_quick_test: every experiment ran, drew its plot and is on the page"
