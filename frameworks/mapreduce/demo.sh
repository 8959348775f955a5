#!/usr/bin/env bash
# The MapReduce demo (run by scripts/demo.sh mapreduce, which sets
# MESOS_MASTER, MESOS_NODES, DEMO_DIR and BUILD_DIR): generates text with
# known word counts, puts it into the block store over the four nodes, runs
# wordcount on the cluster, checks every count and prints the job's
# locality report. Exits 0 only when the counts are right.
set -euo pipefail
: "${MESOS_MASTER:?} ${MESOS_NODES:?} ${DEMO_DIR:?} ${BUILD_DIR:?}"
dfs="$BUILD_DIR/frameworks/dfs/mesos-dfs"
mapreduce="$BUILD_DIR/frameworks/mapreduce/mesos-mapreduce"
export MESOS_DFS_ROOT="$DEMO_DIR/dfs"

echo "== generating text with known word counts"
"$dfs" generate --output="$DEMO_DIR/words.txt" --answers="$DEMO_DIR/words.answers" \
  --lines=50000 --seed=7
echo "== putting it into the block store (256 KiB blocks, 2 copies, rack-aware)"
"$dfs" put "$DEMO_DIR/words.txt" /demo/words --nodes="$MESOS_NODES" \
  --block_size=262144 --replication=2
"$dfs" stat /demo/words | sed -n '1,3p;9,12p'

echo "== mesos-mapreduce run --job=wordcount (delay scheduling, --locality_wait=5)"
"$mapreduce" run --master="$MESOS_MASTER" --job=wordcount --input=/demo/words \
  --output="$DEMO_DIR/wordcount" --reduces=4 2> "$DEMO_DIR/mapreduce.log"

echo "== checking the counts against the generator's answers"
sort "$DEMO_DIR"/wordcount/part-* > "$DEMO_DIR/got.txt"
sort "$DEMO_DIR/words.answers" > "$DEMO_DIR/expected.txt"
if ! cmp -s "$DEMO_DIR/got.txt" "$DEMO_DIR/expected.txt"; then
  echo "wordcount: WRONG counts:" >&2
  diff "$DEMO_DIR/expected.txt" "$DEMO_DIR/got.txt" | sed -n "1,20p" >&2
  exit 1
fi
words=$(wc -l < "$DEMO_DIR/expected.txt")
echo "all $words distinct words counted correctly; the most frequent:"
sort -t "$(printf '\t')" -k2,2nr "$DEMO_DIR/got.txt" | sed -n "1,5p" | sed 's/^/  /'
