#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (in build-fuzz/, or
# $MESOS_FUZZ_BUILD_DIR) and fuzzes each for SECONDS (default 20), starting
# from a copy of its seed corpus: decoder_fuzzer (the runtime's HTTP request
# decoder, tests/fuzz/corpus/), acls_fuzzer (the ACL parser,
# tests/fuzz/acls_corpus/) and sasl_fuzzer (what the master decodes of an
# authenticating client, and credentials files; tests/fuzz/sasl_corpus/). Exits non-zero when
# the build fails or the fuzzer finds a crash, a leak, a sanitizer report or
# a broken invariant; the input that did it is saved in
# <build dir>/fuzz-artifacts/ (add it to the target's corpus once fixed, so
# the normal test suite replays it).
#
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail

seconds="${1:-20}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
  echo "usage: $0 [SECONDS]  (a positive whole number, default 20)" >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MESOS_FUZZ_BUILD_DIR:-$root/build-fuzz}"
clangxx="$(command -v clang++ || command -v clang++-14 || true)"
if [ -z "$clangxx" ]; then
  echo "fuzz.sh: clang++ not found; libFuzzer needs clang (and libclang-rt-dev)" >&2
  exit 2
fi

echo "== configuring $build with $clangxx"
mkdir -p "$build"
cmake -S "$root" -B "$build" \
  -DCMAKE_CXX_COMPILER="$clangxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMESOS_FUZZ=ON \
  -DMESOS_BUILD_TESTS=ON >"$build/fuzz-configure.log" 2>&1 || {
  cat "$build/fuzz-configure.log" >&2
  exit 1
}

echo "== building decoder_fuzzer, acls_fuzzer and sasl_fuzzer"
cmake --build "$build" --target decoder_fuzzer acls_fuzzer sasl_fuzzer -j "$(nproc)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$build/fuzz-artifacts"

# fuzz TARGET CORPUS_DIR MAX_LEN
fuzz() {
  local target="$1" corpus="$2" max_len="$3"
  mkdir -p "$work/$target"
  cp "$root/tests/fuzz/$corpus"/* "$work/$target/"
  echo "== fuzzing $target for ${seconds}s"
  # -timeout: an input that takes 10 s is a hang, and a failure.
  "$build/tests/fuzz/$target" \
    -max_total_time="$seconds" \
    -timeout=10 \
    -max_len="$max_len" \
    -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$target-" \
    "$work/$target"
}

fuzz decoder_fuzzer corpus 4096
fuzz acls_fuzzer acls_corpus 4096
fuzz sasl_fuzzer sasl_corpus 4096
echo "== no crash in ${seconds}s per target"
