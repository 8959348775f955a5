#!/usr/bin/env bash
# Installs what is missing, then configures and builds into ${BUILD_DIR:-build}.
# Extra arguments go to cmake's configure step (e.g. -DMESOS_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMESOS_WERROR=ON "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
