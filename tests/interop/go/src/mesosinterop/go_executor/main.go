// go_executor is an interoperability probe: a custom executor written against
// the (real, upstream) mesos-go v0 executor driver, launched by our slave.
//
//	go_executor [glog flags]
//
// It takes everything else from the environment the slave gives executors
// (MESOS_SLAVE_PID, MESOS_FRAMEWORK_ID, MESOS_EXECUTOR_ID, MESOS_SLAVE_ID,
// MESOS_DIRECTORY; LIBPROCESS_IP for the address of its own HTTP server).
//
// For every task it is given it sends TASK_RUNNING, a framework message
// "running <task id>", then TASK_FINISHED with data "ran:" + the task's data.
// A killed task gets TASK_KILLED. It answers every framework message <data>
// with a framework message "reply:<data>". When the slave shuts it down it
// exits 0.
//
// stdout (the sandbox's stdout file) gets one line per event:
//
//	registered <executor id> <framework id> <slave id>
//	launch <task id>
//	message <data>
//	kill <task id>
//	shutdown
//	exit <driver status>
//
// mesos-go quirk: its executor driver runs every callback on a goroutine of
// its own (serialized by a mutex, but not ordered), so "registered" may come
// after "launch" even though the slave sent ExecutorRegisteredMessage first.
//
// Exit status: 0 after a shutdown; 1 on a driver error; 3 setup error.
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
	exec "github.com/mesos/mesos-go/api/v0/executor"
	mesos "github.com/mesos/mesos-go/api/v0/mesosproto"
)

type probe struct {
	shutdown     chan struct{}
	shutdownOnce sync.Once // the driver may call Shutdown twice (shutdown, then a network error)
	failed       chan string
}

func (p *probe) Registered(driver exec.ExecutorDriver, executor *mesos.ExecutorInfo, framework *mesos.FrameworkInfo, slave *mesos.SlaveInfo) {
	fmt.Printf("registered %s %s %s\n", executor.GetExecutorId().GetValue(),
		framework.GetId().GetValue(), slave.GetId().GetValue())
	log.Infof("registered: executor %v framework %q on slave %q", executor.GetExecutorId().GetValue(),
		framework.GetName(), slave.GetHostname())
}

func (p *probe) Reregistered(driver exec.ExecutorDriver, slave *mesos.SlaveInfo) {
	log.Infof("re-registered with slave %s", slave.GetId().GetValue())
}

func (p *probe) Disconnected(driver exec.ExecutorDriver) {
	log.Infof("disconnected from the slave")
}

func (p *probe) send(driver exec.ExecutorDriver, status *mesos.TaskStatus) {
	if _, err := driver.SendStatusUpdate(status); err != nil {
		p.fail(fmt.Sprintf("sending %s for task %s: %v", status.GetState(), status.GetTaskId().GetValue(), err))
	}
}

func (p *probe) fail(message string) {
	select {
	case p.failed <- message:
	default:
	}
}

func (p *probe) LaunchTask(driver exec.ExecutorDriver, task *mesos.TaskInfo) {
	fmt.Printf("launch %s\n", task.GetTaskId().GetValue())
	p.send(driver, &mesos.TaskStatus{
		TaskId: task.TaskId,
		State:  mesos.TaskState_TASK_RUNNING.Enum(),
	})
	p.message(driver, "running "+task.GetTaskId().GetValue())
	p.send(driver, &mesos.TaskStatus{
		TaskId:  task.TaskId,
		State:   mesos.TaskState_TASK_FINISHED.Enum(),
		Message: proto.String("go_executor ran it"),
		Data:    append([]byte("ran:"), task.GetData()...),
	})
}

func (p *probe) KillTask(driver exec.ExecutorDriver, id *mesos.TaskID) {
	fmt.Printf("kill %s\n", id.GetValue())
	p.send(driver, &mesos.TaskStatus{TaskId: id, State: mesos.TaskState_TASK_KILLED.Enum()})
}

func (p *probe) message(driver exec.ExecutorDriver, data string) {
	if _, err := driver.SendFrameworkMessage(data); err != nil {
		p.fail(fmt.Sprintf("sending framework message %q: %v", data, err))
	}
}

func (p *probe) FrameworkMessage(driver exec.ExecutorDriver, data string) {
	fmt.Printf("message %s\n", data)
	p.message(driver, "reply:"+data)
}

func (p *probe) Shutdown(driver exec.ExecutorDriver) {
	p.shutdownOnce.Do(func() {
		fmt.Println("shutdown")
		close(p.shutdown)
	})
}

func (p *probe) Error(driver exec.ExecutorDriver, message string) {
	p.fail("driver error: " + message)
}

func main() {
	flag.Set("logtostderr", "true")
	flag.Parse()

	address := os.Getenv("LIBPROCESS_IP")
	if address == "" {
		address = "127.0.0.1"
	}
	bind := net.ParseIP(address)
	if bind == nil {
		fmt.Fprintf(os.Stderr, "error: invalid LIBPROCESS_IP %q\n", address)
		os.Exit(3)
	}

	p := &probe{shutdown: make(chan struct{}), failed: make(chan string, 1)}
	driver, err := exec.NewMesosExecutorDriver(exec.DriverConfig{
		Executor:         p,
		HostnameOverride: address,
		BindingAddress:   bind,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: creating the executor driver: %v\n", err)
		os.Exit(3)
	}
	if _, err := driver.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "error: starting the executor driver: %v\n", err)
		os.Exit(3)
	}

	joined := make(chan mesos.Status, 1)
	go func() {
		status, _ := driver.Join()
		joined <- status
	}()

	select {
	case status := <-joined:
		// The driver stops itself on ShutdownExecutorMessage (and on a
		// network error with the slave, aborting). It calls Shutdown on
		// another goroutine, so Join may return before that callback ran;
		// give it a moment.
		select {
		case <-p.shutdown:
		case <-time.After(5 * time.Second):
			fmt.Fprintf(os.Stderr, "error: driver stopped (%s) without a shutdown\n", status)
			fmt.Printf("exit %s\n", status)
			log.Flush()
			os.Exit(1)
		}
		fmt.Printf("exit %s\n", status)
		log.Flush()
		os.Exit(0)
	case message := <-p.failed:
		fmt.Fprintf(os.Stderr, "error: %s\n", message)
		driver.Abort()
		log.Flush()
		os.Exit(1)
	}
}
