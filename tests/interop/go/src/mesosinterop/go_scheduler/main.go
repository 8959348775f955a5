// go_scheduler is an interoperability probe: a framework written against the
// (real, upstream) mesos-go v0 scheduler driver, run against our master.
//
//	go_scheduler --master=<ip:port> --executor=<absolute path of go_executor>
//	             [--ip=127.0.0.1] [--timeout=45s]
//
// What it does, in order:
//
//  1. registers (the driver's standalone detector first reads the leader's
//     UPID from GET http://<master>/state, then sends RegisterFrameworkMessage);
//  2. on the first offer big enough, launches two command tasks in one
//     LaunchTasksMessage: "echo-task" (`echo hi`) and "sleep-task"
//     (`sleep 1000`); every other offer meanwhile is declined;
//  3. kills "sleep-task" once it is TASK_RUNNING;
//  4. once "echo-task" is TASK_FINISHED and "sleep-task" TASK_KILLED, revives
//     offers and, on the next offer, launches with AcceptOffers (a LAUNCH
//     operation, sent as a scheduler Call) "custom-task" on a custom
//     executor ("go-executor", whose command is --executor, shell off) with
//     task data "payload"; it expects TASK_RUNNING, then TASK_FINISHED with
//     data "ran:payload" (go_executor echoes the task's data), and the
//     framework message "running custom-task" from the executor;
//  5. sends the executor the framework message "bye" (the driver sends it
//     straight to the slave it learnt from the offer) and expects the
//     framework message "reply:bye" back;
//  6. stops the driver (unregistering the framework) and exits 0.
//
// stdout gets one line per event, for the test to check:
//
//	registered <framework id>
//	launched <task id> ... on <slave id>
//	status <task id> <TASK_STATE>
//	killing <task id>
//	message <executor id> <slave id> <data>
//	done
//
// Exit status: 0 everything went as above; 1 something unexpected (a task
// state other than the expected ones, a driver error, --timeout passed), with
// one line "error: ..." on stderr; 3 usage / setup error.
//
// glog output goes to stderr.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gogo/protobuf/proto"
	log "github.com/golang/glog"
	mesos "github.com/mesos/mesos-go/api/v0/mesosproto"
	util "github.com/mesos/mesos-go/api/v0/mesosutil"
	sched "github.com/mesos/mesos-go/api/v0/scheduler"
)

const (
	echoTask   = "echo-task"
	sleepTask  = "sleep-task"
	customTask = "custom-task"
	executorID = "go-executor"
	taskData   = "payload"

	taskCpus     = 0.1
	taskMem      = 32.0
	executorCpus = 0.1
	executorMem  = 32.0
)

type phase int

const (
	waitingForFirstOffer  phase = iota // nothing launched yet
	runningCommandTasks                // echo-task and sleep-task launched
	waitingForSecondOffer              // both done; offers revived
	runningCustomTask                  // custom-task launched
	waitingForReply                    // custom-task finished; "bye" sent
	finished                           // "reply:bye" received
)

// probe implements sched.Scheduler. The driver runs callbacks one at a
// time, on one goroutine; the mutex is for the main goroutine, which reads
// the state for its timeout message.
type probe struct {
	executorPath string

	mu       sync.Mutex
	phase    phase
	states   map[string][]mesos.TaskState // every state seen, per task
	killSent bool
	messages []string // framework messages received, in order

	result chan error // one value: nil (success) or the failure
	once   sync.Once
}

func (p *probe) finish(err error) {
	p.once.Do(func() { p.result <- err })
}

func (p *probe) failf(format string, args ...interface{}) {
	p.finish(fmt.Errorf(format, args...))
}

func (p *probe) Registered(driver sched.SchedulerDriver, id *mesos.FrameworkID, master *mesos.MasterInfo) {
	log.Infof("registered as %s with master %s", id.GetValue(), master.GetPid())
	fmt.Printf("registered %s\n", id.GetValue())
	if id.GetValue() == "" {
		p.failf("registered with an empty framework id")
	}
}

func (p *probe) Reregistered(driver sched.SchedulerDriver, master *mesos.MasterInfo) {
	p.failf("unexpectedly re-registered with master %s", master.GetPid())
}

func (p *probe) Disconnected(driver sched.SchedulerDriver) {
	p.failf("disconnected from the master")
}

// scalar sums the unreserved-or-not scalar resource `name` of an offer.
func scalar(offer *mesos.Offer, name string) float64 {
	total := 0.0
	for _, r := range offer.GetResources() {
		if r.GetName() == name && r.GetType() == mesos.Value_SCALAR {
			total += r.GetScalar().GetValue()
		}
	}
	return total
}

func resources(cpus, mem float64) []*mesos.Resource {
	return []*mesos.Resource{
		util.NewScalarResource("cpus", cpus),
		util.NewScalarResource("mem", mem),
	}
}

func commandTask(id, command string, offer *mesos.Offer) *mesos.TaskInfo {
	return &mesos.TaskInfo{
		Name:      proto.String("go_scheduler " + id),
		TaskId:    util.NewTaskID(id),
		SlaveId:   offer.SlaveId,
		Resources: resources(taskCpus, taskMem),
		Command:   &mesos.CommandInfo{Value: proto.String(command), Shell: proto.Bool(true)},
	}
}

func (p *probe) customExecutorTask(offer *mesos.Offer) *mesos.TaskInfo {
	return &mesos.TaskInfo{
		Name:      proto.String("go_scheduler " + customTask),
		TaskId:    util.NewTaskID(customTask),
		SlaveId:   offer.SlaveId,
		Resources: resources(taskCpus, taskMem),
		Data:      []byte(taskData),
		Executor: &mesos.ExecutorInfo{
			ExecutorId: util.NewExecutorID(executorID),
			Name:       proto.String("go_executor"),
			Source:     proto.String("mesosinterop"),
			// FrameworkId is left out on purpose: the driver fills it in.
			Command: &mesos.CommandInfo{
				Value:     proto.String(p.executorPath),
				Shell:     proto.Bool(false),
				Arguments: []string{filepath.Base(p.executorPath), "--logtostderr"},
			},
			Resources: resources(executorCpus, executorMem),
		},
	}
}

func (p *probe) launch(driver sched.SchedulerDriver, offer *mesos.Offer, tasks []*mesos.TaskInfo) bool {
	// A short refusal so that leftovers come back soon. mesos-go quirk: the
	// filters must not be nil (LaunchTasksMessage.filters is required in its
	// proto, and its messenger refuses to marshal the message without them:
	// `proto: required field "filters" not set`).
	filters := &mesos.Filters{RefuseSeconds: proto.Float64(1)}
	ids := make([]string, 0, len(tasks))
	for _, task := range tasks {
		ids = append(ids, task.TaskId.GetValue())
	}
	if _, err := driver.LaunchTasks([]*mesos.OfferID{offer.Id}, tasks, filters); err != nil {
		p.failf("LaunchTasks(%s) on offer %s: %v", strings.Join(ids, ","), offer.Id.GetValue(), err)
		return false
	}
	fmt.Printf("launched %s on %s\n", strings.Join(ids, " "), offer.SlaveId.GetValue())
	return true
}

// accept launches `task` through AcceptOffers: one LAUNCH operation.
func (p *probe) accept(driver sched.SchedulerDriver, offer *mesos.Offer, task *mesos.TaskInfo) bool {
	operation := &mesos.Offer_Operation{
		Type:   mesos.Offer_Operation_LAUNCH.Enum(),
		Launch: &mesos.Offer_Operation_Launch{TaskInfos: []*mesos.TaskInfo{task}},
	}
	filters := &mesos.Filters{RefuseSeconds: proto.Float64(1)}
	if _, err := driver.AcceptOffers([]*mesos.OfferID{offer.Id}, []*mesos.Offer_Operation{operation}, filters); err != nil {
		p.failf("AcceptOffers(%s) on offer %s: %v", task.TaskId.GetValue(), offer.Id.GetValue(), err)
		return false
	}
	fmt.Printf("launched %s on %s\n", task.TaskId.GetValue(), offer.SlaveId.GetValue())
	return true
}

func decline(driver sched.SchedulerDriver, offer *mesos.Offer) {
	if _, err := driver.DeclineOffer(offer.Id, &mesos.Filters{RefuseSeconds: proto.Float64(1)}); err != nil {
		log.Warningf("declining offer %s: %v", offer.Id.GetValue(), err)
	}
}

func (p *probe) ResourceOffers(driver sched.SchedulerDriver, offers []*mesos.Offer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, offer := range offers {
		cpus, mem := scalar(offer, "cpus"), scalar(offer, "mem")
		log.Infof("offer %s from slave %s (%s): cpus %v mem %v", offer.Id.GetValue(),
			offer.SlaveId.GetValue(), offer.GetHostname(), cpus, mem)
		switch {
		case p.phase == waitingForFirstOffer && cpus >= 2*taskCpus && mem >= 2*taskMem:
			tasks := []*mesos.TaskInfo{
				commandTask(echoTask, "echo hi", offer),
				commandTask(sleepTask, "sleep 1000", offer),
			}
			if p.launch(driver, offer, tasks) {
				p.phase = runningCommandTasks
			}
		case p.phase == waitingForSecondOffer && cpus >= taskCpus+executorCpus && mem >= taskMem+executorMem:
			if p.accept(driver, offer, p.customExecutorTask(offer)) {
				p.phase = runningCustomTask
			}
		default:
			decline(driver, offer)
		}
	}
}

func (p *probe) OfferRescinded(driver sched.SchedulerDriver, id *mesos.OfferID) {
	log.Infof("offer %s rescinded", id.GetValue())
}

func (p *probe) last(task string) (mesos.TaskState, bool) {
	states := p.states[task]
	if len(states) == 0 {
		return 0, false
	}
	return states[len(states)-1], true
}

func (p *probe) sawState(task string, state mesos.TaskState) bool {
	for _, s := range p.states[task] {
		if s == state {
			return true
		}
	}
	return false
}

// describeStatus names the optional fields that are set (GetReason and
// GetSource would turn absent ones into the enums' first values).
func describeStatus(status *mesos.TaskStatus) string {
	parts := []string{}
	if status.Source != nil {
		parts = append(parts, "source "+status.Source.String())
	}
	if status.Reason != nil {
		parts = append(parts, "reason "+status.Reason.String())
	}
	if status.ExecutorId != nil {
		parts = append(parts, "executor "+status.ExecutorId.GetValue())
	}
	if status.SlaveId != nil {
		parts = append(parts, "slave "+status.SlaveId.GetValue())
	}
	if status.Message != nil {
		parts = append(parts, fmt.Sprintf("message %q", status.GetMessage()))
	}
	if len(status.Uuid) > 0 {
		parts = append(parts, fmt.Sprintf("uuid of %d bytes", len(status.Uuid)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (p *probe) StatusUpdate(driver sched.SchedulerDriver, status *mesos.TaskStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	task := status.GetTaskId().GetValue()
	state := status.GetState()
	fmt.Printf("status %s %s\n", task, state)
	log.Infof("status update: task %s %s: %s", task, state, describeStatus(status))
	p.states[task] = append(p.states[task], state)

	// What each task may go through: STAGING/STARTING are tolerated (a
	// slave may send them), RUNNING is required before the terminal state.
	expectedEnd := map[string]mesos.TaskState{
		echoTask:   mesos.TaskState_TASK_FINISHED,
		sleepTask:  mesos.TaskState_TASK_KILLED,
		customTask: mesos.TaskState_TASK_FINISHED,
	}
	end, known := expectedEnd[task]
	switch {
	case !known:
		p.failf("status update for unknown task %q (%s)", task, state)
		return
	case state == mesos.TaskState_TASK_STAGING || state == mesos.TaskState_TASK_STARTING:
		return
	case state == mesos.TaskState_TASK_RUNNING:
	case state == end:
		if !p.sawState(task, mesos.TaskState_TASK_RUNNING) {
			p.failf("task %s reached %s without TASK_RUNNING first", task, state)
			return
		}
	default:
		p.failf("task %s: unexpected %s: %s", task, state, describeStatus(status))
		return
	}

	if task == sleepTask && state == mesos.TaskState_TASK_RUNNING && !p.killSent {
		p.killSent = true
		fmt.Printf("killing %s\n", sleepTask)
		if _, err := driver.KillTask(util.NewTaskID(sleepTask)); err != nil {
			p.failf("KillTask(%s): %v", sleepTask, err)
			return
		}
	}

	if task == customTask && state == mesos.TaskState_TASK_FINISHED {
		if got := string(status.GetData()); got != "ran:"+taskData {
			p.failf("task %s finished with data %q, expected %q", task, got, "ran:"+taskData)
			return
		}
		// mesos-go's executor driver leaves TaskStatus.executor_id out; the
		// slave fills it in (as Apache Mesos's does).
		if status.GetExecutorId().GetValue() != executorID {
			p.failf("task %s: status names executor %q, expected %q", task,
				status.GetExecutorId().GetValue(), executorID)
			return
		}
	}

	echoDone, _ := p.last(echoTask)
	sleepDone, _ := p.last(sleepTask)
	customDone, _ := p.last(customTask)
	if p.phase == runningCommandTasks && echoDone == mesos.TaskState_TASK_FINISHED &&
		sleepDone == mesos.TaskState_TASK_KILLED {
		p.phase = waitingForSecondOffer
		// The leftovers of the first offer were refused for a while; ask for
		// them again now (ReviveOffersMessage clears the framework's filters).
		if _, err := driver.ReviveOffers(); err != nil {
			p.failf("ReviveOffers: %v", err)
			return
		}
	}
	if p.phase == runningCustomTask && customDone == mesos.TaskState_TASK_FINISHED {
		p.phase = waitingForReply
		slave := status.GetSlaveId()
		if slave.GetValue() == "" {
			p.failf("task %s: TASK_FINISHED names no slave", task)
			return
		}
		if _, err := driver.SendFrameworkMessage(util.NewExecutorID(executorID), slave, "bye"); err != nil {
			p.failf("SendFrameworkMessage(bye): %v", err)
			return
		}
		p.checkFinished()
	}
}

func (p *probe) received(data string) bool {
	for _, m := range p.messages {
		if m == data {
			return true
		}
	}
	return false
}

// checkFinished ends the run once the custom executor's messages are in
// (they and the status updates travel different paths: no order between them).
func (p *probe) checkFinished() {
	if p.phase == waitingForReply && p.received("running "+customTask) && p.received("reply:bye") {
		p.phase = finished
		p.finish(nil)
	}
}

func (p *probe) FrameworkMessage(driver sched.SchedulerDriver, executor *mesos.ExecutorID, slave *mesos.SlaveID, data string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Printf("message %s %s %s\n", executor.GetValue(), slave.GetValue(), data)
	if executor.GetValue() != executorID {
		p.failf("framework message %q from unexpected executor %q", data, executor.GetValue())
		return
	}
	p.messages = append(p.messages, data)
	p.checkFinished()
}

func (p *probe) SlaveLost(driver sched.SchedulerDriver, slave *mesos.SlaveID) {
	p.failf("slave %s lost", slave.GetValue())
}

func (p *probe) ExecutorLost(driver sched.SchedulerDriver, executor *mesos.ExecutorID, slave *mesos.SlaveID, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// The custom executor exits only when shut down, after we are done.
	if p.phase != finished {
		p.failf("executor %s on %s lost (status %d)", executor.GetValue(), slave.GetValue(), status)
	}
}

func (p *probe) Error(driver sched.SchedulerDriver, message string) {
	p.failf("driver error: %s", message)
}

func (p *probe) describe() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	parts := []string{}
	for _, task := range []string{echoTask, sleepTask, customTask} {
		parts = append(parts, fmt.Sprintf("%s %v", task, p.states[task]))
	}
	return fmt.Sprintf("phase %d; %s; messages %q", p.phase, strings.Join(parts, "; "), p.messages)
}

func fail(code int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "error: "+format+"\n", args...)
	log.Flush()
	os.Exit(code)
}

func main() {
	master := flag.String("master", "", "the master, as ip:port")
	executor := flag.String("executor", "", "absolute path of the go_executor binary")
	ip := flag.String("ip", "127.0.0.1", "address for the driver's own HTTP server (and its UPID)")
	timeout := flag.Duration("timeout", 45*time.Second, "how long the whole run may take")
	flag.Set("logtostderr", "true")
	flag.Parse()

	if *master == "" || *executor == "" || !filepath.IsAbs(*executor) {
		fail(3, "usage: go_scheduler --master=<ip:port> --executor=<absolute path> [--ip=127.0.0.1] [--timeout=45s]")
	}
	bind := net.ParseIP(*ip)
	if bind == nil {
		fail(3, "invalid --ip %q", *ip)
	}

	p := &probe{
		executorPath: *executor,
		states:       map[string][]mesos.TaskState{},
		result:       make(chan error, 1),
	}
	driver, err := sched.NewMesosSchedulerDriver(sched.DriverConfig{
		Scheduler: p,
		Framework: &mesos.FrameworkInfo{
			User: proto.String(""), // the driver fills in the current user
			Name: proto.String("mesos-go interop probe"),
		},
		Master: *master,
		// Without these the driver advertises whatever `hostname -f` resolves
		// to; the test's master only listens on (and reaches) loopback.
		HostnameOverride: *ip,
		BindingAddress:   bind,
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
		outcome = fmt.Errorf("timed out after %v (%s)", *timeout, p.describe())
	}

	// Stop(false) unregisters the framework: the master then shuts down its
	// executors (go_executor gets ShutdownExecutorMessage). mesos-go waits
	// 2 s after sending UnregisterFrameworkMessage before stopping its
	// messenger, so that the message goes out.
	if status, err := driver.Stop(false); err != nil {
		log.Warningf("stopping the driver: %v (%s)", err, status)
		if outcome == nil {
			outcome = fmt.Errorf("stopping the driver: %v (%s)", err, status)
		}
	}
	if outcome != nil {
		fail(1, "%v", outcome)
	}
	fmt.Println("done")
	log.Flush()
	os.Exit(0)
}
