#!/usr/bin/env bash
# Installs, builds and starts a local cluster with an example framework on it.
# Until the master exists this runs the runtime demo: two actors in two
# processes exchanging messages over TCP.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
build=${BUILD_DIR:-build}
exec "$build/src/local/mesos-runtime-demo" "$@"
