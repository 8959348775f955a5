// go_auth_scheduler is an interoperability probe: a framework on the (real,
// upstream) mesos-go v0 scheduler driver that authenticates with our master
// with a credential, through mesos-go's SASL authenticatee and its CRAM-MD5
// mechanism, before it registers.
//
//	go_auth_scheduler --master=<ip:port> --principal=P --secret=S
//	                  [--ip=127.0.0.1] [--timeout=30s]
//
// It starts the driver, waits for the registration, stops the driver
// (unregistering the framework) and exits 0, printing
//
//	registered <framework id>
//	done
//
// A master that refuses the credential leaves mesos-go's driver unregistered
// without a callback (it logs "master ... refused authentication"): the probe
// then exits 1 after --timeout with "error: timed out ..." on stderr; a
// driver error exits 1 with "error: ..."; 3 is a usage or setup error.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gogo/protobuf/proto"
	log "github.com/golang/glog"
	"github.com/mesos/mesos-go/api/v0/auth"
	"github.com/mesos/mesos-go/api/v0/auth/sasl"
	_ "github.com/mesos/mesos-go/api/v0/auth/sasl/mech/crammd5"
	mesos "github.com/mesos/mesos-go/api/v0/mesosproto"
	sched "github.com/mesos/mesos-go/api/v0/scheduler"
	"golang.org/x/net/context"
)

// probe implements sched.Scheduler: it reports the registration or an error
// once, and ignores everything else.
type probe struct {
	result chan error
}

func (p *probe) report(err error) {
	select {
	case p.result <- err:
	default:
	}
}

func (p *probe) Registered(driver sched.SchedulerDriver, id *mesos.FrameworkID, master *mesos.MasterInfo) {
	fmt.Printf("registered %s\n", id.GetValue())
	p.report(nil)
}
func (p *probe) Reregistered(sched.SchedulerDriver, *mesos.MasterInfo) {}
func (p *probe) Disconnected(sched.SchedulerDriver)                    {}
func (p *probe) ResourceOffers(driver sched.SchedulerDriver, offers []*mesos.Offer) {
	for _, offer := range offers {
		driver.DeclineOffer(offer.Id, &mesos.Filters{RefuseSeconds: proto.Float64(60)})
	}
}
func (p *probe) OfferRescinded(sched.SchedulerDriver, *mesos.OfferID)                              {}
func (p *probe) StatusUpdate(sched.SchedulerDriver, *mesos.TaskStatus)                             {}
func (p *probe) FrameworkMessage(sched.SchedulerDriver, *mesos.ExecutorID, *mesos.SlaveID, string) {}
func (p *probe) SlaveLost(sched.SchedulerDriver, *mesos.SlaveID)                                   {}
func (p *probe) ExecutorLost(sched.SchedulerDriver, *mesos.ExecutorID, *mesos.SlaveID, int)        {}
func (p *probe) Error(driver sched.SchedulerDriver, message string) {
	p.report(fmt.Errorf("driver error: %s", message))
}

func fail(status int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "error: "+format+"\n", args...)
	log.Flush()
	os.Exit(status)
}

func main() {
	master := flag.String("master", "", "the master, as ip:port")
	principal := flag.String("principal", "", "the principal to authenticate as")
	secret := flag.String("secret", "", "its secret")
	ip := flag.String("ip", "127.0.0.1", "address for the driver's own HTTP servers (and UPIDs)")
	timeout := flag.Duration("timeout", 30*time.Second, "how long to wait for the registration")
	flag.Set("logtostderr", "true")
	flag.Parse()

	if *master == "" || *principal == "" {
		fail(3, "usage: go_auth_scheduler --master=<ip:port> --principal=P --secret=S [--ip=127.0.0.1] [--timeout=30s]")
	}
	bind := net.ParseIP(*ip)
	if bind == nil {
		fail(3, "invalid --ip %q", *ip)
	}

	p := &probe{result: make(chan error, 1)}
	driver, err := sched.NewMesosSchedulerDriver(sched.DriverConfig{
		Scheduler: p,
		Framework: &mesos.FrameworkInfo{
			User:      proto.String(""),
			Name:      proto.String("mesos-go authentication probe"),
			Principal: proto.String(*principal),
		},
		Master:           *master,
		HostnameOverride: *ip,
		BindingAddress:   bind,
		Credential: &mesos.Credential{
			Principal: proto.String(*principal),
			Secret:    proto.String(*secret),
		},
		WithAuthContext: func(ctx context.Context) context.Context {
			ctx = auth.WithLoginProvider(ctx, sasl.ProviderName)
			return sasl.WithBindingAddress(ctx, bind)
		},
	})
	if err != nil {
		fail(3, "creating the scheduler driver: %v", err)
	}
	if status, err := driver.Start(); err != nil {
		fail(3, "starting the scheduler driver: %v (%s)", err, status)
	}

	var outcome error
	select {
	case outcome = <-p.result:
	case <-time.After(*timeout):
		outcome = fmt.Errorf("timed out after %v without registering", *timeout)
	}
	if outcome != nil {
		driver.Abort()
		fail(1, "%v", outcome)
	}
	if status, err := driver.Stop(false); err != nil {
		fail(1, "stopping the driver: %v (%s)", err, status)
	}
	fmt.Println("done")
	log.Flush()
	os.Exit(0)
}
