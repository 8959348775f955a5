// go_v1_scheduler is an interoperability probe: a framework written against
// the (real, upstream) mesos-go v1 HTTP scheduler client (api/v1/lib: its
// httpsched caller over httpcli), run against our master's
// POST /api/v1/scheduler.
//
//	go_v1_scheduler --master=<ip:port> [--encoding=protobuf|json]
//	                [--timeout=60s] [--user=<name>] [--command=<shell>]
//	                [--docker_image=<image>]
//
// What it does, in order:
//
//  1. SUBSCRIBEs with FrameworkInfo{name "go-v1-probe", user (the current
//     user unless --user), no role: the default}; the master must answer 200
//     with a Mesos-Stream-Id header and a RecordIO stream of Events, the
//     first SUBSCRIBED;
//  2. on the first offer holding cpus 0.1 and mem 32, ACCEPTs it with one
//     LAUNCH operation: the command task "go-v1-task"
//     (`echo hello-v1 && sleep 1`, or --command; cpus 0.1, mem 32; in a
//     MESOS container from --docker_image when given); every other offer,
//     before and after, is DECLINEd;
//  3. prints each UPDATE of that task and ACKNOWLEDGEs every one that
//     carries a uuid; TASK_STAGING and TASK_STARTING are let by, TASK_RUNNING
//     and then TASK_FINISHED are expected;
//  4. after TASK_FINISHED (acknowledged), sends TEARDOWN and exits 0.
//
// Every call after SUBSCRIBE carries the stream id (httpsched adds the
// header) and the framework id, and must be answered 202.
//
// stdout gets one line per step, for the test to check:
//
//	subscribing <endpoint> <encoding>
//	subscribed <framework id> <heartbeat interval seconds>
//	offer <offer id> <agent id>
//	launched go-v1-task <agent id> <offer id>
//	declined <offer id>
//	status go-v1-task <TASK_STATE>
//	acknowledged go-v1-task <TASK_STATE>
//	teardown
//	done
//
// (and "heartbeat", "rescind <offer id>", "failure ..." when such events
// come). stderr gets one line per HTTP exchange ("http: <call> -> <status>
// <headers>"), so that a failure shows what the server answered, and on
// failure one line "error: <reason>".
//
// Exit status: 0 everything went as above; 1 anything else (a call refused,
// an ERROR event, the stream ending, a task state other than the expected
// ones, --timeout passed); 3 usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/user"
	"sort"
	"strings"
	"time"

	mesos "github.com/mesos/mesos-go/api/v1/lib"
	"github.com/mesos/mesos-go/api/v1/lib/encoding"
	"github.com/mesos/mesos-go/api/v1/lib/encoding/codecs"
	"github.com/mesos/mesos-go/api/v1/lib/httpcli"
	"github.com/mesos/mesos-go/api/v1/lib/httpcli/httpsched"
	"github.com/mesos/mesos-go/api/v1/lib/scheduler"
	"github.com/mesos/mesos-go/api/v1/lib/scheduler/calls"
)

const (
	frameworkName = "go-v1-probe"
	taskID        = "go-v1-task"
	taskCommand   = "echo hello-v1 && sleep 1"
	taskCpus      = 0.1
	taskMem       = 32.0
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "error: "+format+"\n", args...)
	os.Exit(1)
}

func step(format string, args ...interface{}) {
	fmt.Printf(format+"\n", args...)
}

// loggingDo wraps an HTTP round trip: one line on stderr per exchange with
// the call's type (from the request's X-Probe-Call header, which it
// removes), the status and the headers that matter to the v1 API.
func loggingDo(do httpcli.DoFunc) httpcli.DoFunc {
	return func(req *http.Request) (*http.Response, error) {
		call := req.Header.Get("X-Probe-Call")
		req.Header.Del("X-Probe-Call")
		res, err := do(req)
		if err != nil {
			fmt.Fprintf(os.Stderr, "http: %s %s -> %v\n", call, req.URL, err)
			return res, err
		}
		var headers []string
		for name, values := range res.Header {
			headers = append(headers, name+": "+strings.Join(values, ","))
		}
		if len(res.TransferEncoding) > 0 {
			// Go takes Transfer-Encoding out of the headers.
			headers = append(headers, "Transfer-Encoding: "+strings.Join(res.TransferEncoding, ","))
		}
		sort.Strings(headers)
		fmt.Fprintf(os.Stderr, "http: %s (Content-Type %s, Mesos-Stream-Id %q) -> %s [%s]\n",
			call, req.Header.Get("Content-Type"), req.Header.Get("Mesos-Stream-Id"), res.Status,
			strings.Join(headers, "; "))
		return res, err
	}
}

func scalar(offer *mesos.Offer, name string) float64 {
	total := 0.0
	for _, r := range offer.Resources {
		if r.Name == name && r.Scalar != nil {
			total += r.Scalar.Value
		}
	}
	return total
}

func scalarResource(name string, value float64) mesos.Resource {
	return mesos.Resource{Name: name, Type: mesos.SCALAR.Enum(), Scalar: &mesos.Value_Scalar{Value: value}}
}

type probe struct {
	ctx         context.Context
	client      *httpcli.Client
	caller      calls.Caller
	frameworkID string
	launched    bool
	running     bool
	command     string // the task's shell command
	dockerImage string // when set, the task runs in this Docker image (a MESOS container)
}

// call sends `c` with the framework id; a failure (anything but 202) ends
// the probe.
func (p *probe) call(c *scheduler.Call) {
	c = c.With(calls.Framework(p.frameworkID))
	p.client.With(httpcli.RequestOptions(httpcli.Header("X-Probe-Call", c.GetType().String())))
	err := calls.CallNoData(p.ctx, p.caller, c)
	if err != nil {
		fail("%s refused: %v", c.GetType(), err)
	}
}

func (p *probe) offers(offers []mesos.Offer) {
	var declined []mesos.OfferID
	for i := range offers {
		offer := &offers[i]
		step("offer %s %s", offer.ID.Value, offer.AgentID.Value)
		if p.launched || scalar(offer, "cpus") < taskCpus || scalar(offer, "mem") < taskMem {
			declined = append(declined, offer.ID)
			continue
		}
		shell := true
		command := p.command
		task := mesos.TaskInfo{
			Name:      taskID,
			TaskID:    mesos.TaskID{Value: taskID},
			AgentID:   offer.AgentID,
			Resources: []mesos.Resource{scalarResource("cpus", taskCpus), scalarResource("mem", taskMem)},
			Command:   &mesos.CommandInfo{Value: &command, Shell: &shell},
		}
		if p.dockerImage != "" {
			task.Container = &mesos.ContainerInfo{
				Type: mesos.ContainerInfo_MESOS.Enum(),
				Mesos: &mesos.ContainerInfo_MesosInfo{Image: &mesos.Image{
					Type:   mesos.Image_DOCKER.Enum(),
					Docker: &mesos.Image_Docker{Name: p.dockerImage},
				}},
			}
		}
		accept := calls.Accept(calls.OfferOperations{calls.OpLaunch(task)}.WithOffers(offer.ID)).
			With(calls.RefuseSeconds(time.Second))
		p.call(accept)
		p.launched = true
		step("launched %s %s %s", taskID, offer.AgentID.Value, offer.ID.Value)
	}
	if len(declined) > 0 {
		p.call(calls.Decline(declined...).With(calls.RefuseSeconds(time.Second)))
		for _, id := range declined {
			step("declined %s", id.Value)
		}
	}
}

// update handles a task's status; true once the task has finished.
func (p *probe) update(status *mesos.TaskStatus) bool {
	state := status.GetState()
	step("status %s %s", status.TaskID.Value, state)
	if len(status.UUID) > 0 {
		agentID := ""
		if status.AgentID != nil {
			agentID = status.AgentID.Value
		}
		p.call(calls.Acknowledge(agentID, status.TaskID.Value, status.UUID))
		step("acknowledged %s %s", status.TaskID.Value, state)
	}
	if status.TaskID.Value != taskID {
		fail("an update of a task never launched: %s", status.TaskID.Value)
	}
	switch state {
	case mesos.TASK_STAGING, mesos.TASK_STARTING:
		return false
	case mesos.TASK_RUNNING:
		p.running = true
		return false
	case mesos.TASK_FINISHED:
		if !p.running {
			fail("%s finished without TASK_RUNNING before", taskID)
		}
		return true
	default:
		fail("%s is %s (reason %s, source %s): %s", taskID, state, status.GetReason(),
			status.GetSource(), status.GetMessage())
	}
	return false
}

func main() {
	master := flag.String("master", "", "the master, <ip:port>")
	encodingName := flag.String("encoding", "protobuf", "protobuf or json, both ways")
	timeout := flag.Duration("timeout", 60*time.Second, "how long the whole run may take")
	userName := flag.String("user", "", "the framework's user (default: the current user)")
	command := flag.String("command", taskCommand, "the task's shell command")
	dockerImage := flag.String("docker_image", "", "a Docker image the task runs in (a MESOS container)")
	flag.Parse()
	if *master == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: go_v1_scheduler --master=<ip:port> [--encoding=protobuf|json] [--timeout=60s] [--user=NAME] [--command=SHELL] [--docker_image=IMAGE]")
		os.Exit(3)
	}
	var codec encoding.Codec
	switch *encodingName {
	case "protobuf":
		codec = codecs.ByMediaType[codecs.MediaTypeProtobuf]
	case "json":
		codec = codecs.ByMediaType[codecs.MediaTypeJSON]
	default:
		fmt.Fprintf(os.Stderr, "--encoding must be protobuf or json, not %q\n", *encodingName)
		os.Exit(3)
	}
	if *userName == "" {
		current, err := user.Current()
		if err != nil {
			fmt.Fprintf(os.Stderr, "no --user and no current user: %v\n", err)
			os.Exit(3)
		}
		*userName = current.Username
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	endpoint := "http://" + *master + "/api/v1/scheduler"
	client := httpcli.New(
		httpcli.Endpoint(endpoint),
		httpcli.Codec(codec),
		httpcli.Do(loggingDo(httpcli.With(httpcli.Timeout(10*time.Second)))),
	)
	p := &probe{ctx: ctx, client: client, caller: httpsched.NewCaller(client), command: *command,
		dockerImage: *dockerImage}

	step("subscribing %s %s", endpoint, codec.Name)
	info := &mesos.FrameworkInfo{User: *userName, Name: frameworkName}
	client.With(httpcli.RequestOptions(httpcli.Header("X-Probe-Call", "SUBSCRIBE")))
	resp, err := p.caller.Call(ctx, calls.Subscribe(info))
	if err != nil {
		fail("SUBSCRIBE refused: %v", err)
	}
	defer resp.Close()

	// The events, decoded on a goroutine of their own so that the timeout
	// can end a stream that stays silent.
	type decoded struct {
		event *scheduler.Event
		err   error
	}
	events := make(chan decoded)
	go func() {
		for {
			var e scheduler.Event
			if err := resp.Decode(&e); err != nil {
				events <- decoded{nil, err}
				return
			}
			events <- decoded{&e, nil}
		}
	}()

	first := true
	for {
		var d decoded
		select {
		case d = <-events:
		case <-ctx.Done():
			fail("not done within %s (framework %q, launched %v, running %v)", *timeout,
				p.frameworkID, p.launched, p.running)
		}
		if d.err != nil {
			if errors.Is(d.err, context.DeadlineExceeded) {
				fail("not done within %s", *timeout)
			}
			fail("the event stream ended: %v", d.err)
		}
		e := d.event
		if first && e.GetType() != scheduler.Event_SUBSCRIBED {
			fail("the first event is %s, not SUBSCRIBED", e.GetType())
		}
		first = false
		switch e.GetType() {
		case scheduler.Event_SUBSCRIBED:
			p.frameworkID = e.GetSubscribed().GetFrameworkID().GetValue()
			if p.frameworkID == "" {
				fail("SUBSCRIBED without a framework id")
			}
			step("subscribed %s %g", p.frameworkID, e.GetSubscribed().GetHeartbeatIntervalSeconds())
		case scheduler.Event_OFFERS:
			p.offers(e.GetOffers().Offers)
		case scheduler.Event_UPDATE:
			status := e.GetUpdate().Status
			if p.update(&status) {
				p.call(&scheduler.Call{Type: scheduler.Call_TEARDOWN})
				step("teardown")
				step("done")
				return
			}
		case scheduler.Event_RESCIND:
			step("rescind %s", e.GetRescind().OfferID.Value)
		case scheduler.Event_HEARTBEAT:
			step("heartbeat")
		case scheduler.Event_FAILURE:
			step("failure %v", e.GetFailure())
		case scheduler.Event_ERROR:
			fail("ERROR event: %s", e.GetError().Message)
		default:
			step("event %s", e.GetType())
		}
	}
}
