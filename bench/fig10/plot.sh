#!/usr/bin/env bash
# Draws Figure 10 from fig10 outputs: probe overhead (p50 and p99, seconds)
# against the number of slaves, as a PNG.
#
#   bench/fig10/plot.sh OUT.png RUN.txt...
#
# Each RUN.txt is the stdout of one fig10 run (its `name: value unit`
# lines); name them as you like (e.g. results/fig10-10000-1.txt). Runs
# with the same `slaves:` and `state_poll_s:` are one point, the median of
# their figures (one pair of lines per polling period); each run is also
# drawn as a small gray mark. The y axis is logarithmic. Runs whose figure is nan (a run cut
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

# One row per run: state_poll_s slaves p50 p99 (nan kept as nan).
for run in "$@"; do
  awk '$1 == "slaves:" { s = $2 }
       $1 == "state_poll_s:" { poll = $2 }
       $1 == "probe_overhead_p50_s:" { p50 = $2 }
       $1 == "probe_overhead_p99_s:" { p99 = $2 }
       END { if (s != "") print poll, s, p50, p99 }' "$run"
done | sort -k1,1n -k2,2n >"$tmp/runs"

if [ ! -s "$tmp/runs" ]; then
  echo "plot.sh: no 'slaves:' line in any of the runs given" >&2
  exit 1
fi

# Per /state polling period, one series: medians per slave count, each
# figure over the runs where it is a number.
plots=()
colors=(dark-red dark-blue dark-green dark-orange)
series=0
for poll in $(cut -d' ' -f1 "$tmp/runs" | sort -nu); do
  awk -v poll="$poll" '$1 == poll' "$tmp/runs" >"$tmp/runs-$poll"
  awk 'function median(list,   n, a, i, j, t) {
         n = split(list, a, " ")
         if (n == 0) return "nan"
         for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
         return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
       }
       { if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 }
         if ($3 != "nan") p50[$2] = p50[$2] " " $3
         if ($4 != "nan") p99[$2] = p99[$2] " " $4 }
       END { for (i = 1; i <= k; i++) print order[i], median(p50[order[i]]), median(p99[order[i]]) }' \
    "$tmp/runs-$poll" >"$tmp/medians-$poll"
  if [ "$poll" = "0" ]; then label="no /state polling"; else label="/state every ${poll} s"; fi
  color=${colors[$((series % ${#colors[@]}))]}
  series=$((series + 1))
  plots+=("\"$tmp/medians-$poll\" using 1:2 with linespoints lw 2 pt 7 lc rgb \"$color\" title \"p50, $label\"")
  plots+=("\"$tmp/medians-$poll\" using 1:3 with linespoints lw 2 pt 5 dt 2 lc rgb \"$color\" title \"p99, $label\"")
  plots+=("\"$tmp/runs-$poll\" using 2:3 with points pt 1 lc rgb \"gray\" notitle")
  plots+=("\"$tmp/runs-$poll\" using 2:4 with points pt 2 lc rgb \"gray\" notitle")
done
plot=$(IFS=,; echo "${plots[*]}")

gnuplot <<GNUPLOT
set terminal pngcairo size 800,500 font "sans,11"
set output "$out"
set title "${FIG10_TITLE:-Figure 10: probe overhead against cluster size (200 frameworks)}"
set xlabel "slaves"
set ylabel "probe overhead (s)"
set logscale xy
set format x "%.0s%c"
set grid
set key top left
set datafile missing "nan"
plot $plot
GNUPLOT
echo "plot.sh: wrote $out" >&2
