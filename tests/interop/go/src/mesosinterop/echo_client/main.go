// echo_client is an interoperability probe: it uses the (real, upstream)
// mesos-go v0 messenger to talk to a libprocess-compatible actor.
//
//	echo_client --target=<id@ip:port> --data=<string> [--timeout=10s] [--id=echo_client] [--count=1]
//
// It starts a mesos-go HTTP messenger bound to 127.0.0.1 on an ephemeral
// port, sends a mesos.internal.FrameworkToExecutorMessage carrying <data> to
// the target and waits for a mesos.internal.ExecutorToFrameworkMessage.
//
// With --count=N (N > 1) it sends N messages in a row, without waiting for
// replies in between (so they share mesos-go's keep-alive connection); the
// i-th carries "<data>-<i>" (i = 1..N). It then waits for N replies.
//
// Once its messenger is up it prints "self: <its UPID>" to stderr.
//
// Exit status:
//
//	0  all replies received; one line "reply: <data>" per reply, in arrival
//	   order, is printed to stdout (exactly one line without --count)
//	1  not all replies came within --timeout ("timeout waiting for reply" on
//	   stderr)
//	2  a message could not be sent (error on stderr)
//	3  usage / setup error
//	4  a reply came from a UPID other than --target (error on stderr)
//
// glog output goes to stderr. Do not raise glog's -v to 3 or more: the
// mesos-go transport then hex-dumps every accepted connection to stdout.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
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
	count := flag.Int("count", 1, "how many messages to send (and replies to wait for)")

	// glog registers its flags on flag.CommandLine; log to stderr instead of
	// leaving files in /tmp. Command line flags may override this.
	flag.Set("logtostderr", "true")
	flag.Parse()

	if *target == "" || *count < 1 {
		fail(3, "usage: echo_client --target=<id@ip:port> --data=<string> [--timeout=10s] [--id=echo_client] [--count=1]")
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

	// Buffered for every expected reply: the handler never blocks, and
	// replies beyond --count are dropped.
	replies := make(chan []byte, *count)
	strangers := make(chan string, 1)
	handler := func(from *upid.UPID, pb proto.Message) {
		msg, ok := pb.(*mesos.ExecutorToFrameworkMessage)
		if !ok {
			return
		}
		if !from.Equal(to) {
			select {
			case strangers <- fmt.Sprintf("reply from %v, expected it from %v", from, to):
			default:
			}
			return
		}
		select {
		case replies <- append([]byte(nil), msg.GetData()...):
		default:
		}
	}
	if err := m.Install(handler, &mesos.ExecutorToFrameworkMessage{}); err != nil {
		fail(3, "failed to install handler: %v", err)
	}
	if err := m.Start(); err != nil {
		fail(3, "failed to start messenger: %v", err)
	}
	defer m.Stop()
	log.Infof("echo_client listening as %v", m.UPID())
	fmt.Fprintf(os.Stderr, "self: %v\n", m.UPID())

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	for i := 1; i <= *count; i++ {
		payload := *data
		if *count > 1 {
			payload = fmt.Sprintf("%s-%d", *data, i)
		}
		msg := &mesos.FrameworkToExecutorMessage{
			SlaveId:     &mesos.SlaveID{Value: proto.String("s1")},
			FrameworkId: &mesos.FrameworkID{Value: proto.String("f1")},
			ExecutorId:  &mesos.ExecutorID{Value: proto.String("e1")},
			Data:        []byte(payload),
		}
		if err := m.Send(ctx, to, msg); err != nil {
			m.Stop()
			fail(2, "failed to send message %d: %v", i, err)
		}
	}

	for received := 0; received < *count; {
		select {
		case reply := <-replies:
			fmt.Printf("reply: %s\n", reply)
			received++
		case err := <-tr.errs:
			m.Stop()
			fail(2, "%v", err)
		case stranger := <-strangers:
			m.Stop()
			fail(4, "%s", stranger)
		case <-ctx.Done():
			m.Stop()
			fail(1, "timeout waiting for reply (%d of %d received)", received, *count)
		}
	}
	m.Stop()
	log.Flush()
	os.Exit(0)
}
