// echo_client is an interoperability probe: it uses the (real, upstream)
// mesos-go v0 messenger to talk to a libprocess-compatible actor.
//
//	echo_client --target=<id@ip:port> --data=<string> [--timeout=10s] [--id=echo_client]
//
// It starts a mesos-go HTTP messenger bound to 127.0.0.1 on an ephemeral
// port, sends a mesos.internal.FrameworkToExecutorMessage carrying <data> to
// the target and waits for a mesos.internal.ExecutorToFrameworkMessage.
//
// Exit status:
//
//	0  reply received; exactly one line "reply: <data>" is printed to stdout
//	1  no reply within --timeout ("timeout waiting for reply" on stderr)
//	2  the message could not be sent (error on stderr)
//	3  usage / setup error
//
// glog output goes to stderr. Do not raise glog's -v to 3 or more: the
// mesos-go transport then hex-dumps every accepted connection to stdout.
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
	mesos "github.com/mesos/mesos-go/api/v0/mesosproto"
	"github.com/mesos/mesos-go/api/v0/messenger"
	"github.com/mesos/mesos-go/api/v0/upid"
	"golang.org/x/net/context"
)

// reportingTransporter wraps mesos-go's HTTP transporter. MesosMessenger.Send
// only enqueues a message; failures of the actual HTTP POST (connection
// refused, non-200/202 status, ...) are merely logged by the messenger. This
// wrapper surfaces them so that we can exit with status 2.
type reportingTransporter struct {
	messenger.Transporter
	errs chan error
}

func (t *reportingTransporter) Send(ctx context.Context, msg *messenger.Message) error {
	err := t.Transporter.Send(ctx, msg)
	if err != nil {
		select {
		case t.errs <- fmt.Errorf("failed to send %s to %v: %v", msg.Name, msg.UPID, err):
		default:
		}
	}
	return err
}

func fail(code int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	log.Flush()
	os.Exit(code)
}

func main() {
	target := flag.String("target", "", "UPID of the echo actor, e.g. echo@127.0.0.1:12345")
	data := flag.String("data", "", "payload of the FrameworkToExecutorMessage")
	timeout := flag.Duration("timeout", 10*time.Second, "how long to wait for the reply")
	id := flag.String("id", "echo_client", "process id of our own UPID")

	// glog registers its flags on flag.CommandLine; log to stderr instead of
	// leaving files in /tmp. Command line flags may override this.
	flag.Set("logtostderr", "true")
	flag.Parse()

	if *target == "" {
		fail(3, "usage: echo_client --target=<id@ip:port> --data=<string> [--timeout=10s]")
	}
	to, err := upid.Parse(*target)
	if err != nil {
		fail(3, "invalid --target %q: %v", *target, err)
	}

	self := upid.UPID{ID: *id, Host: "127.0.0.1", Port: "0"}
	tr := &reportingTransporter{
		Transporter: messenger.NewHTTPTransporter(self, net.ParseIP("127.0.0.1")),
		errs:        make(chan error, 1),
	}
	m := messenger.New(tr)

	replies := make(chan []byte, 1)
	var once sync.Once
	handler := func(from *upid.UPID, pb proto.Message) {
		msg, ok := pb.(*mesos.ExecutorToFrameworkMessage)
		if !ok {
			return
		}
		once.Do(func() { replies <- msg.GetData() })
	}
	if err := m.Install(handler, &mesos.ExecutorToFrameworkMessage{}); err != nil {
		fail(3, "failed to install handler: %v", err)
	}
	if err := m.Start(); err != nil {
		fail(3, "failed to start messenger: %v", err)
	}
	defer m.Stop()
	log.Infof("echo_client listening as %v", m.UPID())

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	msg := &mesos.FrameworkToExecutorMessage{
		SlaveId:     &mesos.SlaveID{Value: proto.String("s1")},
		FrameworkId: &mesos.FrameworkID{Value: proto.String("f1")},
		ExecutorId:  &mesos.ExecutorID{Value: proto.String("e1")},
		Data:        []byte(*data),
	}
	if err := m.Send(ctx, to, msg); err != nil {
		m.Stop()
		fail(2, "failed to send: %v", err)
	}

	select {
	case reply := <-replies:
		fmt.Printf("reply: %s\n", reply)
		m.Stop()
		log.Flush()
		os.Exit(0)
	case err := <-tr.errs:
		m.Stop()
		fail(2, "%v", err)
	case <-ctx.Done():
		m.Stop()
		fail(1, "timeout waiting for reply")
	}
}
