// go_failover_scheduler is a framework on the (real, upstream) mesos-go v0
// scheduler driver that follows the leading master through ZooKeeper (the
// driver's zoo detector plugin) and reports when it is registered, when it
// loses the master and when it is registered again. bench/failover_bench
// runs it (--mesos_go_scheduler) to measure how long after a master's
// kill -9 a mesos-go framework is back (docs/benchmarks.md).
//
//	go_failover_scheduler --master=zk://<host:port>[,...]/<path>
//	                      [--ip=127.0.0.1] [--failover_timeout=1h]
//
// It declines every offer (refuse_seconds 3600) and runs until killed.
// stdout gets one line per driver callback, written whole as it happens,
// each ending with the wall-clock time in seconds since the epoch:
//
//	registered <framework id> <master pid> <time>
//	disconnected <time>
//	reregistered <master pid> <time>
//	error <message> <time>
//
// Exit status: 3 usage / setup error (with "error: ..." on stderr).
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/gogo/protobuf/proto"
	log "github.com/golang/glog"
	_ "github.com/mesos/mesos-go/api/v0/detector/zoo"
	mesos "github.com/mesos/mesos-go/api/v0/mesosproto"
	sched "github.com/mesos/mesos-go/api/v0/scheduler"
)

var outMu sync.Mutex

// say prints one line with the current time appended.
func say(format string, args ...interface{}) {
	now := float64(time.Now().UnixNano()) / 1e9
	outMu.Lock()
	defer outMu.Unlock()
	fmt.Printf(format+" %.6f\n", append(args, now)...)
}

type follower struct{}

func (follower) Registered(_ sched.SchedulerDriver, id *mesos.FrameworkID, master *mesos.MasterInfo) {
	say("registered %s %s", id.GetValue(), master.GetPid())
}

func (follower) Reregistered(_ sched.SchedulerDriver, master *mesos.MasterInfo) {
	say("reregistered %s", master.GetPid())
}

func (follower) Disconnected(sched.SchedulerDriver) { say("disconnected") }

func (follower) ResourceOffers(driver sched.SchedulerDriver, offers []*mesos.Offer) {
	filters := &mesos.Filters{RefuseSeconds: proto.Float64(3600)}
	for _, offer := range offers {
		if _, err := driver.DeclineOffer(offer.Id, filters); err != nil {
			log.Warningf("declining offer %s: %v", offer.Id.GetValue(), err)
		}
	}
}

func (follower) OfferRescinded(sched.SchedulerDriver, *mesos.OfferID)                              {}
func (follower) StatusUpdate(sched.SchedulerDriver, *mesos.TaskStatus)                             {}
func (follower) FrameworkMessage(sched.SchedulerDriver, *mesos.ExecutorID, *mesos.SlaveID, string) {}
func (follower) SlaveLost(sched.SchedulerDriver, *mesos.SlaveID)                                   {}
func (follower) ExecutorLost(sched.SchedulerDriver, *mesos.ExecutorID, *mesos.SlaveID, int)        {}
func (follower) Error(_ sched.SchedulerDriver, message string)                                     { say("error %q", message) }

func main() {
	master := flag.String("master", "", "zk://<host:port>[,...]/<path>")
	ip := flag.String("ip", "127.0.0.1", "address for the driver's own HTTP server (and its UPID)")
	failoverTimeout := flag.Duration("failover_timeout", time.Hour, "the framework's failover timeout")
	flag.Set("logtostderr", "true")
	flag.Parse()

	bind := net.ParseIP(*ip)
	if *master == "" || bind == nil {
		fmt.Fprintln(os.Stderr, "error: usage: go_failover_scheduler --master=zk://<hosts>/<path> [--ip=127.0.0.1]")
		os.Exit(3)
	}
	driver, err := sched.NewMesosSchedulerDriver(sched.DriverConfig{
		Scheduler: follower{},
		Framework: &mesos.FrameworkInfo{
			User:            proto.String(""), // the driver fills in the current user
			Name:            proto.String("mesos-go failover follower"),
			FailoverTimeout: proto.Float64(failoverTimeout.Seconds()),
		},
		Master:           *master,
		HostnameOverride: *ip,
		BindingAddress:   bind,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: creating the scheduler driver: %v\n", err)
		os.Exit(3)
	}
	if status, err := driver.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "error: the scheduler driver stopped: %v (%s)\n", err, status)
		os.Exit(3)
	}
}
