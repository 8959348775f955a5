// go_detector is an interoperability probe: it follows the leading master
// with the (real, upstream) mesos-go v0 ZooKeeper master detector
// (api/v0/detector/zoo), which reads the group of "json.info_<sequence>"
// znodes our masters create at the URL's path and takes the lowest sequence
// as the leader.
//
//	go_detector zk://<host:port>[,<host:port>...]/<path>
//
// It prints one line to stdout each time the detector reports a change,
// written whole as it happens (stdout is not buffered):
//
//	leader <id> <pid>   a master leads; <pid> is its MasterInfo's pid, or
//	                    "master@<ip>:<port>" built from its address (or its
//	                    packed ip and port) when the pid is absent, or ""
//	                    when neither is there
//	none                no master leads (or the leader's data was unreadable,
//	                    which the detector logs on stderr)
//
// It runs until it is killed. Exit status: 1 the detector stopped by itself
// (its ZooKeeper client closed), with "error: ..." on stderr; 3 usage / setup
// error.
//
// glog and the ZooKeeper client log to stderr.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"

	log "github.com/golang/glog"
	"github.com/mesos/mesos-go/api/v0/detector"
	"github.com/mesos/mesos-go/api/v0/detector/zoo"
	mesos "github.com/mesos/mesos-go/api/v0/mesosproto"
)

func fail(code int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	log.Flush()
	os.Exit(code)
}

// pidOf is the leader's UPID as a string: its pid when present, otherwise
// "master@<ip>:<port>" from address.ip (or address.hostname) and
// address.port, or from the deprecated packed ip and port. The packed ip
// holds the address's bytes in network order as Apache Mesos stores it (the
// in_addr's s_addr read as a native, little-endian on x86, integer).
func pidOf(info *mesos.MasterInfo) string {
	if info.GetPid() != "" {
		return info.GetPid()
	}
	if address := info.GetAddress(); address != nil {
		host := address.GetIp()
		if host == "" {
			host = address.GetHostname()
		}
		if host != "" && address.GetPort() != 0 {
			return "master@" + net.JoinHostPort(host, strconv.Itoa(int(address.GetPort())))
		}
	}
	if info.Ip != nil && info.GetPort() != 0 {
		ip := make(net.IP, 4)
		binary.LittleEndian.PutUint32(ip, info.GetIp())
		return "master@" + net.JoinHostPort(ip.String(), strconv.Itoa(int(info.GetPort())))
	}
	return ""
}

func main() {
	// glog registers its flags on flag.CommandLine; log to stderr instead of
	// leaving files in /tmp. Command line flags may override this.
	flag.Set("logtostderr", "true")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s zk://<host:port>[,...]/<path>\n", os.Args[0])
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(3)
	}
	url := flag.Arg(0)

	md, err := zoo.NewMasterDetector(url)
	if err != nil {
		fail(3, "error: cannot create a detector for %s: %v", url, err)
	}

	var mu sync.Mutex
	report := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		// One write per line: the reader never sees half a line.
		if _, err := os.Stdout.Write([]byte(line + "\n")); err != nil {
			fail(1, "error: cannot write to stdout: %v", err)
		}
	}

	changed := detector.OnMasterChanged(func(info *mesos.MasterInfo) {
		if info == nil {
			report("none")
			return
		}
		report(fmt.Sprintf("leader %s %s", info.GetId(), pidOf(info)))
	})
	if err := md.Detect(changed); err != nil {
		fail(3, "error: cannot start detecting at %s: %v", url, err)
	}

	<-md.Done()
	fail(1, "error: the detector stopped (its ZooKeeper client closed)")
}
