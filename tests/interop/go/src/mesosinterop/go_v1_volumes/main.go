// go_v1_volumes is an interoperability probe: a framework written against
// the (real, upstream) mesos-go v1 HTTP scheduler client (api/v1/lib: its
// httpsched caller over httpcli) that reserves resources, makes a
// persistent volume of them, runs tasks on it and gives it all back, through
// offer operations sent to our master's POST /api/v1/scheduler.
//
//	go_v1_volumes --master=<ip:port> [--encoding=protobuf|json]
//	              [--format=pre-refinement|refinement] [--role=db]
//	              [--principal=go-v1-ops] [--timeout=90s] [--user=<name>]
//
// The framework is FrameworkInfo{name "go-v1-volumes", user (the current
// user unless --user), role --role, principal --principal}; with
// --format=refinement it also has the RESERVATION_REFINEMENT capability and
// writes and expects reservations as the `reservations` stack, otherwise
// as `role` and `reservation` (the format Apache's master offers to a
// framework without that capability). No operation has an id: the mesos-go
// in Debian has no Offer.Operation.id and no UPDATE_OPERATION_STATUS event,
// so operations are seen to work by the offers that follow.
//
// What it does, in order:
//
//  1. SUBSCRIBEs; the first event must be SUBSCRIBED;
//  2. on the first offer with unreserved cpus 0.2, mem 64 and disk 64
//     (its slave is "the agent" from then on), one ACCEPT with three
//     operations: RESERVE of cpus 0.2, mem 64, disk 64 for the role, by the
//     principal, labelled purpose=go-v1-probe; CREATE of the volume
//     "go-v1-volume" (container path "data", RW) on the 64 reserved disk;
//     LAUNCH of "go-v1-writer" (`echo hello > data/f`, reserved cpus 0.1 and
//     mem 32, and the volume), which must reach TASK_FINISHED;
//  3. on the next offer of the agent holding the volume and the whole
//     reservation (checked: the volume's persistence id, principal,
//     container path and mode; every reserved resource in the framework's
//     format, for the role, by the principal, with the labels; and what
//     the master's /master/state says is reserved on the agent, read with
//     plain HTTP, printed), LAUNCH of "go-v1-reader"
//     (`cat data/f && test "$(cat data/f)" = hello`, the volume and
//     reserved cpus and mem as offered), which must reach TASK_FINISHED;
//  4. on the next such offer, one ACCEPT with DESTROY of the volume and
//     UNRESERVE of the reservation (both as offered);
//  5. the next offer of the agent must hold nothing reserved and no volume;
//     /master/state's reservations on the agent are printed again; then
//     TEARDOWN, and exit 0.
//
// Every other offer is DECLINEd (the agent's for a second, the others' for
// an hour: they are never needed). Every task update is printed and
// ACKNOWLEDGEd when it carries a uuid; TASK_STAGING and TASK_STARTING are
// let by, TASK_RUNNING and then TASK_FINISHED are expected.
//
// stdout gets one line per step, for the test to check:
//
//	subscribing <endpoint> <encoding> <format>
//	subscribed <framework id> <heartbeat interval seconds>
//	offer <offer id> <agent id>
//	declined <offer id>
//	reserved <offer id> <agent id> cpus <n> mem <n> disk <n>
//	created go-v1-volume <offer id> data
//	launched <task> <agent id> <offer id>
//	status <task> <TASK_STATE>
//	acknowledged <task> <TASK_STATE>
//	reservation <offer id> <agent id> cpus <n> mem <n> disk <n> role <role> principal <p> labels <k=v,...> format <format>
//	volume <offer id> <agent id> go-v1-volume principal <p> path data mode RW
//	state <agent id> reserved_resources <JSON object>
//	destroyed go-v1-volume <offer id>
//	unreserved <offer id> cpus <n> mem <n> disk <n>
//	unreserved-offer <offer id> <agent id> cpus <n> mem <n> disk <n>
//	state <agent id> reserved_resources <JSON object>
//	teardown
//	done
//
// (and "heartbeat", "rescind <offer id>", "failure ..." when such events
// come). stderr gets one line per HTTP exchange ("http: <call> -> <status>
// <headers>") and on failure one line "error: <reason>".
//
// Exit status: 0 everything went as above; 1 anything else (a call refused,
// an ERROR event, the stream ending, a task state other than the expected
// ones, an offer of the agent that is not what the step before should have
// left, --timeout passed); 3 usage.
package main

import (
	"context"
	"encoding/json"
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
	frameworkName = "go-v1-volumes"
	volumeID      = "go-v1-volume"
	containerPath = "data"
	writerID      = "go-v1-writer"
	writerCommand = "echo hello > data/f"
	readerID      = "go-v1-reader"
	readerCommand = `cat data/f && test "$(cat data/f)" = hello`
	labelKey      = "purpose"
	labelValue    = "go-v1-probe"

	reservedCpus = 0.2
	reservedMem  = 64.0
	reservedDisk = 64.0
	taskCpus     = 0.1
	taskMem      = 32.0
)

// Where the run is: what the probe waits for.
type phase int

const (
	awaitingFirstOffer   phase = iota // an offer to reserve on
	writing                           // the writer runs
	awaitingVolumeOffer               // the volume, offered again
	reading                           // the reader runs
	awaitingReleaseOffer              // the volume, offered again
	awaitingFreedOffer                // the agent's offer after DESTROY and UNRESERVE
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
		sort.Strings(headers)
		fmt.Fprintf(os.Stderr, "http: %s (Content-Type %s) -> %s [%s]\n", call,
			req.Header.Get("Content-Type"), res.Status, strings.Join(headers, "; "))
		return res, err
	}
}

type probe struct {
	ctx         context.Context
	master      string
	client      *httpcli.Client
	caller      calls.Caller
	refinement  bool
	formatName  string
	role        string
	principal   string
	frameworkID string
	phase       phase
	agentID     string
	running     bool // the current task reported TASK_RUNNING
}

// call sends `c` with the framework id; a failure (anything but 202) ends
// the probe.
func (p *probe) call(c *scheduler.Call) {
	c = c.With(calls.Framework(p.frameworkID))
	p.client.With(httpcli.RequestOptions(httpcli.Header("X-Probe-Call", c.GetType().String())))
	if err := calls.CallNoData(p.ctx, p.caller, c); err != nil {
		fail("%s refused: %v", c.GetType(), err)
	}
}

func (p *probe) labels() *mesos.Labels {
	value := labelValue
	return &mesos.Labels{Labels: []mesos.Label{{Key: labelKey, Value: &value}}}
}

// reserved is `name` of `value` reserved dynamically for the role by the
// principal, with the labels, in the framework's format.
func (p *probe) reserved(name string, value float64) mesos.Resource {
	r := mesos.Resource{Name: name, Type: mesos.SCALAR.Enum(), Scalar: &mesos.Value_Scalar{Value: value}}
	role, principal := p.role, p.principal
	if p.refinement {
		r.Reservations = []mesos.Resource_ReservationInfo{{
			Type:      mesos.Resource_ReservationInfo_DYNAMIC.Enum(),
			Role:      &role,
			Principal: &principal,
			Labels:    p.labels(),
		}}
	} else {
		r.Role = &role
		r.Reservation = &mesos.Resource_ReservationInfo{Principal: &principal, Labels: p.labels()}
	}
	return r
}

// volume is the persistent volume made of the reserved disk.
func (p *probe) volume() mesos.Resource {
	r := p.reserved("disk", reservedDisk)
	principal := p.principal
	r.Disk = &mesos.Resource_DiskInfo{
		Persistence: &mesos.Resource_DiskInfo_Persistence{ID: volumeID, Principal: &principal},
		Volume:      &mesos.Volume{ContainerPath: containerPath, Mode: mesos.RW.Enum()},
	}
	return r
}

func (p *probe) task(id, command string, agentID mesos.AgentID, resources []mesos.Resource) mesos.TaskInfo {
	shell := true
	return mesos.TaskInfo{
		Name:      id,
		TaskID:    mesos.TaskID{Value: id},
		AgentID:   agentID,
		Resources: resources,
		Command:   &mesos.CommandInfo{Value: &command, Shell: &shell},
	}
}

// isReserved says whether `r` is reserved for some role, in either format.
func isReserved(r *mesos.Resource) bool {
	return len(r.Reservations) > 0 || r.Reservation != nil || r.GetRole() != "*"
}

func labelsText(labels *mesos.Labels) string {
	if labels == nil || len(labels.Labels) == 0 {
		return "-"
	}
	var parts []string
	for _, l := range labels.Labels {
		parts = append(parts, l.Key+"="+l.GetValue())
	}
	return strings.Join(parts, ",")
}

// checkReservation returns why the reserved resource `r` is not reserved
// as this probe reserved it, in the framework's format ("" when it is).
func (p *probe) checkReservation(r *mesos.Resource) string {
	var role, principal string
	var labels *mesos.Labels
	if p.refinement {
		if r.Role != nil || r.Reservation != nil {
			return fmt.Sprintf("%s has role %q / reservation %v, which a RESERVATION_REFINEMENT framework is not sent", r.Name, r.GetRole(), r.Reservation)
		}
		if len(r.Reservations) != 1 {
			return fmt.Sprintf("%s has %d reservations, not 1", r.Name, len(r.Reservations))
		}
		info := r.Reservations[0]
		if info.GetType() != mesos.Resource_ReservationInfo_DYNAMIC {
			return fmt.Sprintf("%s's reservation is %s, not DYNAMIC", r.Name, info.GetType())
		}
		role, principal, labels = info.GetRole(), info.GetPrincipal(), info.Labels
	} else {
		if len(r.Reservations) != 0 {
			return fmt.Sprintf("%s has `reservations`, which a framework without RESERVATION_REFINEMENT is not sent", r.Name)
		}
		if r.Reservation == nil {
			return fmt.Sprintf("%s has role %q but no `reservation` (not a dynamic reservation)", r.Name, r.GetRole())
		}
		role, principal, labels = r.GetRole(), r.Reservation.GetPrincipal(), r.Reservation.Labels
	}
	if role != p.role || principal != p.principal || labelsText(labels) != labelKey+"="+labelValue {
		return fmt.Sprintf("%s is reserved for role %q by %q with labels %s, not role %q by %q with %s=%s",
			r.Name, role, principal, labelsText(labels), p.role, p.principal, labelKey, labelValue)
	}
	return ""
}

// reservedParts returns the offer's reserved resources, the volume (nil
// when the offer does not hold it) and the reserved scalars by name; any
// reserved resource not reserved as this probe reserved it ends the probe.
func (p *probe) reservedParts(offer *mesos.Offer) (all []mesos.Resource, volume *mesos.Resource, sums map[string]float64) {
	sums = map[string]float64{}
	for i := range offer.Resources {
		r := &offer.Resources[i]
		if !isReserved(r) {
			if r.Disk != nil {
				fail("offer %s holds unreserved disk with disk info %v", offer.ID.Value, r.Disk)
			}
			continue
		}
		if why := p.checkReservation(r); why != "" {
			fail("offer %s: %s", offer.ID.Value, why)
		}
		all = append(all, *r)
		if r.Scalar != nil {
			sums[r.Name] += r.Scalar.Value
		}
		if r.Disk != nil && r.Disk.Persistence != nil {
			if r.Disk.Persistence.ID != volumeID {
				fail("offer %s holds a volume %q this framework never made", offer.ID.Value, r.Disk.Persistence.ID)
			}
			volume = &offer.Resources[i]
		}
	}
	return all, volume, sums
}

func unreservedScalar(offer *mesos.Offer, name string) float64 {
	total := 0.0
	for i := range offer.Resources {
		r := &offer.Resources[i]
		if r.Name == name && r.Scalar != nil && !isReserved(r) && r.Disk == nil {
			total += r.Scalar.Value
		}
	}
	return total
}

// checkVolume ends the probe when the offered volume is not the one
// created, and prints it.
func (p *probe) checkVolume(offer *mesos.Offer, v *mesos.Resource) {
	d := v.Disk
	if d.Volume == nil || d.Volume.ContainerPath != containerPath || d.Volume.GetMode() != mesos.RW {
		fail("offer %s: the volume's disk.volume is %v, not container path %q mode RW", offer.ID.Value, d.Volume, containerPath)
	}
	if d.Persistence.GetPrincipal() != p.principal {
		fail("offer %s: the volume's persistence principal is %q, not %q", offer.ID.Value, d.Persistence.GetPrincipal(), p.principal)
	}
	if v.Scalar == nil || v.Scalar.Value != reservedDisk {
		fail("offer %s: the volume has %v disk, not %g", offer.ID.Value, v.Scalar, reservedDisk)
	}
	step("volume %s %s %s principal %s path %s mode %s", offer.ID.Value, offer.AgentID.Value,
		d.Persistence.ID, d.Persistence.GetPrincipal(), d.Volume.ContainerPath, d.Volume.GetMode())
}

// holdsReservation says whether an offer of the agent holds the volume and
// the whole reservation (printing them when it does).
func (p *probe) holdsReservation(offer *mesos.Offer) ([]mesos.Resource, *mesos.Resource, bool) {
	all, volume, sums := p.reservedParts(offer)
	if volume == nil || sums["cpus"] < reservedCpus || sums["mem"] < reservedMem {
		return nil, nil, false
	}
	if sums["cpus"] != reservedCpus || sums["mem"] != reservedMem || sums["disk"] != reservedDisk {
		fail("offer %s holds more reserved than was reserved: cpus %g mem %g disk %g", offer.ID.Value,
			sums["cpus"], sums["mem"], sums["disk"])
	}
	step("reservation %s %s cpus %g mem %g disk %g role %s principal %s labels %s format %s",
		offer.ID.Value, offer.AgentID.Value, sums["cpus"], sums["mem"], sums["disk"], p.role,
		p.principal, labelKey+"="+labelValue, p.formatName)
	p.checkVolume(offer, volume)
	return all, volume, true
}

// withValue is the reserved scalar `r` with `value` instead.
func withValue(r mesos.Resource, value float64) mesos.Resource {
	r.Scalar = &mesos.Value_Scalar{Value: value}
	return r
}

// reservedNamed returns the offer's reserved resource `name` that is no
// volume (the probe's reservation has one of each).
func reservedNamed(all []mesos.Resource, name string) mesos.Resource {
	for _, r := range all {
		if r.Name == name && r.Disk == nil {
			return r
		}
	}
	fail("no reserved %s", name)
	return mesos.Resource{}
}

// stateLine prints what the master's /master/state says is reserved on
// the agent (its "reserved_resources", by role), read with plain HTTP: what
// an operator sees at this step.
func (p *probe) stateLine() {
	client := http.Client{Timeout: 10 * time.Second}
	res, err := client.Get("http://" + p.master + "/master/state")
	if err != nil {
		fail("GET /master/state: %v", err)
	}
	defer res.Body.Close()
	var state struct {
		Slaves []struct {
			ID       string                 `json:"id"`
			Reserved map[string]interface{} `json:"reserved_resources"`
		} `json:"slaves"`
	}
	if res.StatusCode != http.StatusOK {
		fail("GET /master/state: %s", res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(&state); err != nil {
		fail("GET /master/state: %v", err)
	}
	for _, s := range state.Slaves {
		if s.ID != p.agentID {
			continue
		}
		reserved, err := json.Marshal(s.Reserved)
		if err != nil {
			fail("%v", err)
		}
		step("state %s reserved_resources %s", s.ID, reserved)
		return
	}
	fail("/master/state has no slave %s", p.agentID)
}

func (p *probe) accept(offer *mesos.Offer, ops ...mesos.Offer_Operation) {
	p.call(calls.Accept(calls.OfferOperations(ops).WithOffers(offer.ID)).With(calls.RefuseSeconds(time.Second)))
}

// offers handles an OFFERS event; true once the run is over.
func (p *probe) offers(offers []mesos.Offer) bool {
	var declineShort, declineLong []mesos.OfferID
	done := false
	for i := range offers {
		offer := &offers[i]
		step("offer %s %s", offer.ID.Value, offer.AgentID.Value)
		if p.agentID != "" && offer.AgentID.Value != p.agentID {
			declineLong = append(declineLong, offer.ID)
			continue
		}
		if done {
			declineShort = append(declineShort, offer.ID)
			continue
		}
		switch p.phase {
		case awaitingFirstOffer:
			if unreservedScalar(offer, "cpus") < reservedCpus || unreservedScalar(offer, "mem") < reservedMem ||
				unreservedScalar(offer, "disk") < reservedDisk {
				declineShort = append(declineShort, offer.ID)
				continue
			}
			volume := p.volume()
			writer := p.task(writerID, writerCommand, offer.AgentID, []mesos.Resource{
				p.reserved("cpus", taskCpus), p.reserved("mem", taskMem), volume})
			p.accept(offer,
				calls.OpReserve(p.reserved("cpus", reservedCpus), p.reserved("mem", reservedMem),
					p.reserved("disk", reservedDisk)),
				calls.OpCreate(volume),
				calls.OpLaunch(writer))
			p.agentID = offer.AgentID.Value
			step("reserved %s %s cpus %g mem %g disk %g", offer.ID.Value, offer.AgentID.Value,
				reservedCpus, reservedMem, reservedDisk)
			step("created %s %s %s", volumeID, offer.ID.Value, containerPath)
			step("launched %s %s %s", writerID, offer.AgentID.Value, offer.ID.Value)
			p.phase = writing
		case awaitingVolumeOffer:
			all, volume, ok := p.holdsReservation(offer)
			if !ok {
				declineShort = append(declineShort, offer.ID)
				continue
			}
			p.stateLine()
			reader := p.task(readerID, readerCommand, offer.AgentID, []mesos.Resource{
				withValue(reservedNamed(all, "cpus"), taskCpus),
				withValue(reservedNamed(all, "mem"), taskMem), *volume})
			p.accept(offer, calls.OpLaunch(reader))
			step("launched %s %s %s", readerID, offer.AgentID.Value, offer.ID.Value)
			p.phase = reading
		case awaitingReleaseOffer:
			all, volume, ok := p.holdsReservation(offer)
			if !ok {
				declineShort = append(declineShort, offer.ID)
				continue
			}
			// The reservation as offered, the volume's disk as plain
			// reserved disk (what DESTROY leaves).
			var unreserve []mesos.Resource
			for _, r := range all {
				if r.Disk != nil {
					r.Disk = nil
				}
				unreserve = append(unreserve, r)
			}
			p.accept(offer, calls.OpDestroy(*volume), calls.OpUnreserve(unreserve...))
			step("destroyed %s %s", volumeID, offer.ID.Value)
			sums := map[string]float64{}
			for _, r := range unreserve {
				sums[r.Name] += r.Scalar.Value
			}
			step("unreserved %s cpus %g mem %g disk %g", offer.ID.Value, sums["cpus"], sums["mem"], sums["disk"])
			p.phase = awaitingFreedOffer
		case awaitingFreedOffer:
			for j := range offer.Resources {
				r := &offer.Resources[j]
				if isReserved(r) || r.Disk != nil {
					fail("offer %s after DESTROY and UNRESERVE still holds %s reserved for %q (reservation %v, reservations %v, disk %v)",
						offer.ID.Value, r.Name, r.GetRole(), r.Reservation, r.Reservations, r.Disk)
				}
			}
			step("unreserved-offer %s %s cpus %g mem %g disk %g", offer.ID.Value, offer.AgentID.Value,
				unreservedScalar(offer, "cpus"), unreservedScalar(offer, "mem"), unreservedScalar(offer, "disk"))
			p.stateLine()
			done = true
		default:
			// A task runs: what is left on the agent is not needed.
			declineShort = append(declineShort, offer.ID)
		}
	}
	if len(declineShort) > 0 {
		p.call(calls.Decline(declineShort...).With(calls.RefuseSeconds(time.Second)))
	}
	if len(declineLong) > 0 {
		p.call(calls.Decline(declineLong...).With(calls.RefuseSeconds(time.Hour)))
	}
	for _, id := range append(declineShort, declineLong...) {
		step("declined %s", id.Value)
	}
	return done
}

// update handles a task's status.
func (p *probe) update(status *mesos.TaskStatus) {
	state := status.GetState()
	id := status.TaskID.Value
	step("status %s %s", id, state)
	if len(status.UUID) > 0 {
		agentID := ""
		if status.AgentID != nil {
			agentID = status.AgentID.Value
		}
		p.call(calls.Acknowledge(agentID, id, status.UUID))
		step("acknowledged %s %s", id, state)
	}
	expected := ""
	switch p.phase {
	case writing:
		expected = writerID
	case reading:
		expected = readerID
	}
	if id != expected {
		fail("an update of task %s while waiting for %q", id, expected)
	}
	switch state {
	case mesos.TASK_STAGING, mesos.TASK_STARTING:
	case mesos.TASK_RUNNING:
		p.running = true
	case mesos.TASK_FINISHED:
		if !p.running {
			fail("%s finished without TASK_RUNNING before", id)
		}
		p.running = false
		if p.phase == writing {
			p.phase = awaitingVolumeOffer
		} else {
			p.phase = awaitingReleaseOffer
		}
	default:
		fail("%s is %s (reason %s, source %s): %s", id, state, status.GetReason(),
			status.GetSource(), status.GetMessage())
	}
}

func main() {
	master := flag.String("master", "", "the master, <ip:port>")
	encodingName := flag.String("encoding", "protobuf", "protobuf or json, both ways")
	format := flag.String("format", "pre-refinement", "pre-refinement (role and reservation) or refinement (reservations, with the RESERVATION_REFINEMENT capability)")
	role := flag.String("role", "db", "the framework's role, which it reserves for")
	principal := flag.String("principal", "go-v1-ops", "the framework's principal, which reserves")
	timeout := flag.Duration("timeout", 90*time.Second, "how long the whole run may take")
	userName := flag.String("user", "", "the framework's user (default: the current user)")
	flag.Parse()
	if *master == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: go_v1_volumes --master=<ip:port> [--encoding=protobuf|json] [--format=pre-refinement|refinement] [--role=ROLE] [--principal=NAME] [--timeout=90s] [--user=NAME]")
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
	if *format != "pre-refinement" && *format != "refinement" {
		fmt.Fprintf(os.Stderr, "--format must be pre-refinement or refinement, not %q\n", *format)
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
	p := &probe{ctx: ctx, master: *master, client: client, caller: httpsched.NewCaller(client),
		refinement: *format == "refinement", formatName: *format, role: *role, principal: *principal}

	step("subscribing %s %s %s", endpoint, codec.Name, *format)
	info := &mesos.FrameworkInfo{User: *userName, Name: frameworkName, Role: role, Principal: principal}
	if p.refinement {
		info.Capabilities = []mesos.FrameworkInfo_Capability{
			{Type: mesos.FrameworkInfo_Capability_RESERVATION_REFINEMENT}}
	}
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
			fail("not done within %s (framework %q, phase %d, agent %q)", *timeout, p.frameworkID,
				p.phase, p.agentID)
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
			if p.offers(e.GetOffers().Offers) {
				p.call(&scheduler.Call{Type: scheduler.Call_TEARDOWN})
				step("teardown")
				step("done")
				return
			}
		case scheduler.Event_UPDATE:
			status := e.GetUpdate().Status
			p.update(&status)
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
