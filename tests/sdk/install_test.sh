#!/usr/bin/env bash
# The SDK as users get it (docs/sdk.md). Installs the build tree into a
# temporary prefix, or with --deb makes the Debian package with cpack and
# unpacks it into a temporary root; builds the example framework of
# docs/writing-a-framework.md (hello-scheduler, hello-executor) out of tree
# against it, with CMake (find_package(Mesos)) and with pkg-config
# (mesos.pc) exactly as the docs show, no other flags; runs both builds on
# the installed mesos-local, with command tasks and with tasks in
# hello-executor, and checks that their tasks finish.
#
#   install_test.sh [--deb] <build dir> <examples dir> <source dir>
set -euo pipefail
# What the programs load must come from how they were built.
unset LD_LIBRARY_PATH
deb=false
if [ "${1:-}" = "--deb" ]; then deb=true; shift; fi
build=$1 examples=$2 source=$3
tmp=$(mktemp -d /tmp/mesos-sdk-test.XXXXXX)
local_pid=""
cleanup() {
  [ -n "$local_pid" ] && kill "$local_pid" 2>/dev/null && wait "$local_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if $deb; then
  (cd "$tmp" && cpack --config "$build/CPackConfig.cmake" -G DEB > cpack.log 2>&1) ||
    { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB failed"; }
  package=$(ls "$tmp"/mesos_*.deb 2>/dev/null | sed -n 1p)
  [ -n "$package" ] || fail "cpack made no mesos_*.deb"
  dpkg-deb -c "$package" > "$tmp/contents"
  for file in usr/sbin/mesos-master usr/sbin/mesos-slave usr/bin/mesos-local \
              usr/bin/mesos-execute usr/libexec/mesos/mesos-executor \
              usr/libexec/mesos/mesos-containerizer usr/libexec/mesos/mesos-fetcher \
              usr/include/mesos/scheduler.hpp usr/include/mesos/executor.hpp \
              usr/include/mesos/mesos.pb.h usr/lib/cmake/Mesos/MesosConfig.cmake \
              usr/lib/pkgconfig/mesos.pc; do
    grep -q " \./$file\$" "$tmp/contents" || fail "the package lacks /$file"
  done
  grep -Eq ' \./usr/lib/libmesos-sched\.so\.1(\.|$)' "$tmp/contents" ||
    fail "the package lacks libmesos-sched.so.1"
  depends=$(dpkg-deb -f "$package" Depends)
  for dependency in libprotobuf libgoogle-glog libzookeeper-mt; do
    [[ "$depends" == *"$dependency"* ]] || fail "Depends lacks $dependency: $depends"
  done
  echo "package: $(basename "$package"), $(wc -l < "$tmp/contents") entries, Depends: $depends"
  dpkg-deb -x "$package" "$tmp/root"
  prefix="$tmp/root/usr"
else
  cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" ||
    { cat "$tmp/install.log" >&2; fail "cmake --install failed"; }
  prefix="$tmp/prefix"
fi

# With CMake.
cmake -S "$source/tests/sdk/project" -B "$tmp/with-cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DEXAMPLES="$examples" > "$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log" >&2; fail "configuring against the SDK failed"; }
cmake --build "$tmp/with-cmake" -j2 > "$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log" >&2; fail "building against the SDK with CMake failed"; }
cmake --install "$tmp/with-cmake" --prefix "$tmp/framework" > "$tmp/framework.log" 2>&1 ||
  { cat "$tmp/framework.log" >&2; fail "installing the framework built with CMake failed"; }

# With pkg-config: mesos.pc finds its prefix from where it is. The command
# is the one of docs/sdk.md and docs/writing-a-framework.md.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
libs=$(pkg-config --libs mesos) || fail "pkg-config does not know mesos"
mkdir -p "$tmp/with-pkg-config"
for example in hello_scheduler hello_executor; do
  # shellcheck disable=SC2046
  g++ -std=c++20 "$examples/$example.cpp" -o "$tmp/with-pkg-config/${example/_/-}" \
    $(pkg-config --cflags --libs mesos) || fail "building $example with pkg-config failed"
done

if $deb; then
  # Installed, the package's libraries are in /usr/lib, where the loader
  # looks by itself: its mesos.pc adds no rpath.
  [[ "$libs" != *rpath* ]] || fail "the package's mesos.pc adds an rpath: $libs"
  interpreter=$(readelf -l "$tmp/with-pkg-config/hello-scheduler" |
                sed -n 's/.*interpreter: \(.*\)]/\1/p')
  # glibc's loader lists its folders in --help.
  search=$("$interpreter" --help 2>/dev/null || true)
  if [[ "$search" == *"(system search path)"* ]]; then
    grep -Eq '^ +/usr/lib \(system search path\)' <<< "$search" ||
      fail "/usr/lib is not one of the loader's own folders: $search"
  fi
  # What this test cannot check: that a program built against the package
  # installed in /usr starts with no help, which needs the package installed
  # (root, and it would replace what the machine has). Unpacked into $tmp,
  # LD_LIBRARY_PATH stands for the loader's /usr/lib, for those programs and
  # for the executors mesos-local starts (they inherit its environment).
  export LD_LIBRARY_PATH="$prefix/lib"
else
  # Anywhere else the programs built with pkg-config find the libraries
  # through the rpath mesos.pc adds.
  [[ "$libs" == *"-Wl,-rpath,"* ]] || fail "mesos.pc adds no rpath to $prefix/lib: $libs"
fi

# All run on the installed mesos-local, with the installed libraries only;
# the framework's programs installed with CMake load them too.
for program in "$tmp"/with-*/hello-* "$tmp"/framework/bin/hello-*; do
  libraries=$(ldd "$program")
  [[ "$libraries" != *"not found"* ]] ||
    fail "$program cannot start, libraries not found: $libraries"
  # The folders its libmesos*.so come from, as the loader finds them.
  loaded=$(awk '$1 ~ /^libmesos/ { print $3 }' <<< "$libraries" | xargs -r realpath |
           xargs -r -n1 dirname | sort -u)
  [ "$loaded" = "$(realpath "$prefix/lib")" ] ||
    fail "$program does not load the installed libraries: $libraries"
done
# Its tasks run as root, which a master allows only by a run_tasks rule
# naming root (docs/security.md, "Running as root").
root_acls='{"run_tasks": [{"principals": {"type": "ANY"}, "users": {"values": ["root"]}}]}'
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$prefix/bin/mesos-local" --ip=127.0.0.1 --port="$port" --num_slaves=1 --acls="$root_acls" \
  --resources="cpus:1;mem:512" --work_dir="$tmp/work" > "$tmp/local.log" 2>&1 &
local_pid=$!
for _ in $(seq 200); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$local_pid" 2>/dev/null || { cat "$tmp/local.log" >&2; fail "mesos-local exited"; }
  sleep 0.1
done
for build_kind in with-cmake with-pkg-config; do
  # Command tasks, then tasks in the hello-executor of the same build: only
  # it finishes a task with "hello from hello-executor".
  for executor in "" "$tmp/$build_kind/hello-executor"; do
    out=$(timeout 120 "$tmp/$build_kind/hello-scheduler" "127.0.0.1:$port" 3 \
            ${executor:+"$executor"} 2>&1) ||
      { echo "$out" >&2; fail "$build_kind: hello-scheduler ${executor:+with $executor }failed"; }
    for i in 1 2 3; do
      expected="hello-$i: TASK_FINISHED${executor:+ (hello from hello-executor)}"
      [[ "$out" == *"$expected"* ]] ||
        { echo "$out" >&2; fail "$build_kind: no '$expected'"; }
    done
    echo "$build_kind: 3 tasks finished${executor:+ in hello-executor}"
  done
done
