#!/usr/bin/env bash
# Draws Figure 10 from fig10 outputs: probe overhead (p50 and p99, seconds)
# against the number of slaves, as a PNG.
#
#   bench/fig10/plot.sh OUT.png RUN.txt...
#
# Each RUN.txt is the stdout of one fig10 run (its `name: value unit`
# lines); name them as you like (e.g. results/fig10-10000-1.txt). Runs
# with the same `slaves:` are one point, the median of their figures; each
# run is also drawn as a small mark. Runs whose figure is nan (a run cut
# short) are left out of that figure. Needs gnuplot (Debian gnuplot-nox),
# installed here when missing.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OUT.png RUN.txt..." >&2
  exit 1
fi
out=$1
shift

if ! command -v gnuplot >/dev/null; then
  echo "plot.sh: installing gnuplot-nox" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One row per run: slaves p50 p99 (nan kept as nan).
for run in "$@"; do
  awk '$1 == "slaves:" { s = $2 }
       $1 == "probe_overhead_p50_s:" { p50 = $2 }
       $1 == "probe_overhead_p99_s:" { p99 = $2 }
       END { if (s != "") print s, p50, p99 }' "$run"
done | sort -n >"$tmp/runs"

if [ ! -s "$tmp/runs" ]; then
  echo "plot.sh: no 'slaves:' line in any of the runs given" >&2
  exit 1
fi

# Medians per slave count, each figure over the runs where it is a number.
awk 'function median(list,   n, a, i, j, t) {
       n = split(list, a, " ")
       if (n == 0) return "nan"
       for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
       return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
     }
     { if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 }
       if ($2 != "nan") p50[$1] = p50[$1] " " $2
       if ($3 != "nan") p99[$1] = p99[$1] " " $3 }
     END { for (i = 1; i <= k; i++) print order[i], median(p50[order[i]]), median(p99[order[i]]) }' \
  "$tmp/runs" >"$tmp/medians"

gnuplot <<GNUPLOT
set terminal pngcairo size 800,500 font "sans,11"
set output "$out"
set title "Figure 10: framework overhead against cluster size"
set xlabel "slaves"
set ylabel "probe overhead (s)"
set logscale x
set format x "%.0s%c"
set grid
set key top left
set datafile missing "nan"
plot "$tmp/medians" using 1:2 with linespoints lw 2 pt 7 title "p50 (median of runs)", \
     "$tmp/medians" using 1:3 with linespoints lw 2 pt 5 title "p99 (median of runs)", \
     "$tmp/runs" using 1:2 with points pt 1 lc 1 notitle, \
     "$tmp/runs" using 1:3 with points pt 2 lc 2 notitle
GNUPLOT
echo "plot.sh: wrote $out" >&2
