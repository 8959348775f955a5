#!/usr/bin/env bash
# Installs the Debian packages this project builds, tests and runs with.
# Idempotent: when everything is present it prints nothing and returns at once.
set -euo pipefail

packages=(
  build-essential cmake ccache pkg-config
  libboost-dev libboost-system-dev
  libprotobuf-dev libprotoc-dev protobuf-compiler
  libgoogle-glog-dev libgflags-dev
  libzookeeper-mt-dev zookeeper default-jre-headless
  libjemalloc-dev
  libcurl4-openssl-dev libarchive-dev ca-certificates curl
  libssl-dev openssl
  tar gzip bzip2 xz-utils zip xfsprogs
  lxc
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  libsasl2-dev libsasl2-modules
  golang-go golang-github-mesos-mesos-go-dev golang-goprotobuf-dev
  mpich libmpich-dev libcpp-httplib-dev nlohmann-json3-dev
  python3 gnuplot-nox slurm-wlm munge
  docker.io docker-registry skopeo umoci busybox-static containernetworking-plugins iproute2 iputils-ping
  libjs-bootstrap5 libjs-chart.js chromium libnss3-tools
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
