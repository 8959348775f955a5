#!/usr/bin/env bash
# Installs, builds and runs the whole test suite: the GoogleTest binary and
# the other registered tests through ctest, after a short fuzzing run of the
# wire decoder. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh "$@"
build=${BUILD_DIR:-build}
scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
cd "$build"
ctest --output-on-failure -j"$(nproc)" --timeout 300
