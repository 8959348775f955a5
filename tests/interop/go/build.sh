#!/bin/sh
# Builds the mesos-go interop probes (GOPATH mode, no network).
#
#   tests/interop/go/build.sh <output dir>
#
# Produces <output dir>/echo_client (the messenger alone), go_scheduler (a
# framework on mesos-go's scheduler driver), go_executor (a custom executor
# on mesos-go's executor driver), go_detector (mesos-go's ZooKeeper master
# detector, following the leading master), go_v1_scheduler (a framework on
# mesos-go's v1 HTTP scheduler client, api/v1/lib), go_v1_volumes (one on
# the same client that reserves, makes a persistent volume, runs tasks on
# it, destroys and unreserves), go_auth_scheduler (a
# framework that authenticates with CRAM-MD5 through mesos-go's SASL
# authenticatee before it registers) and go_failover_scheduler (a framework
# following the leader through ZooKeeper, for bench/failover_bench). Needs the Debian packages
# golang-go and golang-github-mesos-mesos-go-dev (which pulls in
# golang-github-gogo-protobuf-dev, golang-glog-dev, golang-golang-x-net-dev,
# golang-github-pquerna-ffjson-dev and golang-github-samuel-go-zookeeper-dev).
# MESOS_GO_GOCODE overrides the
# Debian Go source root (default /usr/share/gocode); GO names the go tool
# (default: `go` from PATH).
set -eu

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 <output dir>" >&2
    exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
gocode=${MESOS_GO_GOCODE:-/usr/share/gocode}
go=${GO:-go}

if ! command -v "$go" >/dev/null 2>&1; then
    echo "build.sh: '$go' not found (install the golang-go package)" >&2
    exit 1
fi
for pkg in github.com/mesos/mesos-go/api/v0/messenger \
           github.com/mesos/mesos-go/api/v0/mesosproto \
           github.com/mesos/mesos-go/api/v0/upid \
           github.com/mesos/mesos-go/api/v0/scheduler \
           github.com/mesos/mesos-go/api/v0/executor \
           github.com/mesos/mesos-go/api/v0/detector/zoo \
           github.com/mesos/mesos-go/api/v0/auth/sasl \
           github.com/mesos/mesos-go/api/v1/lib \
           github.com/mesos/mesos-go/api/v1/lib/encoding/codecs \
           github.com/mesos/mesos-go/api/v1/lib/httpcli \
           github.com/mesos/mesos-go/api/v1/lib/httpcli/httpsched \
           github.com/mesos/mesos-go/api/v1/lib/scheduler \
           github.com/mesos/mesos-go/api/v1/lib/scheduler/calls \
           github.com/pquerna/ffjson/fflib/v1 \
           github.com/samuel/go-zookeeper/zk \
           github.com/pborman/uuid \
           github.com/gogo/protobuf/proto \
           github.com/golang/glog \
           golang.org/x/net/context; do
    if [ ! -d "$gocode/src/$pkg" ]; then
        echo "build.sh: Go source $pkg not found under $gocode/src" >&2
        echo "build.sh: install golang-github-mesos-mesos-go-dev (and its dependencies)" >&2
        exit 1
    fi
done

mkdir -p "$1"
out=$(cd "$1" && pwd)

GO111MODULE=off
GOPATH="$here:$gocode"
GOCACHE="$out/.gocache"
GOFLAGS=
GOPROXY=off
CGO_ENABLED=0
export GO111MODULE GOPATH GOCACHE GOFLAGS GOPROXY CGO_ENABLED

cd "$here"
for program in echo_client go_scheduler go_executor go_v1_scheduler go_v1_volumes \
               go_auth_scheduler go_failover_scheduler; do
    "$go" build -o "$out/$program" "mesosinterop/$program"
    echo "build.sh: built $out/$program"
done
"$go" build -o "$out/go_detector" go_detector
echo "build.sh: built $out/go_detector"
