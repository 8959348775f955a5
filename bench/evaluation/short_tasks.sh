#!/usr/bin/env bash
# Beyond the paper: how much of one 8-cpu node short tasks keep busy, against
# the tasks' length, on our cluster and on Slurm (Reuther et al., "Scalable
# system scheduling for HPC and big data", 2018, measured Mesos, YARN, Slurm
# and Grid Engine below 10% for few-second tasks). Each run is a batch of
# `sleep L` tasks of one cpu each, enough for several waves of 8:
#   ours     a mesos-master and one mesos-slave process (cpus:8) with
#            bench/short_tasks as the framework: one, then 8 frameworks
#            sharing the batch; each task is a command task (its own
#            command executor process, as mesos-execute's are)
#   Slurm    Debian's slurm-wlm: munged, slurmctld and slurmd started here on
#            loopback (one node, CPUs=8) with the settings Slurm documents for
#            high throughput (no scheduling delay or throttle, the builtin
#            FIFO scheduler, no accounting, little logging); the batch is one
#            job array, `sbatch --array`
# Utilization is the tasks' work over 8 cpus times the batch's makespan, from
# its submission to its last task's end. Slurm needs root and slurm-wlm and
# munge installed (scripts/install-deps.sh); without them it is not measured,
# and setup.txt says why.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
machine_setup
if [ "$QUICK" = 1 ]; then lengths=(0.1 1); else lengths=(0.1 1 5 10 30); fi
slots=8
# Tasks for a length: enough waves of $slots for about 20 s of work (16 s
# in --quick), at least 2 waves and at most 50.
tasks_for() {
  python3 -c 'import math, sys
length, slots, budget = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
print(slots * max(2, min(50, math.ceil(budget / length))))' "$1" "$slots" \
    "$([ "$QUICK" = 1 ] && echo 2 || echo 20)"
}

work=$(mktemp -d /tmp/mesos-short-tasks.XXXXXX)
pids=()
slurm_up=0
cleanup() {
  if [ "$slurm_up" = 1 ]; then
    # A batch cut short: its tasks go before the daemons do.
    scancel --quiet --user=root 2>/dev/null || true
    await 10 slurm_empty || true
    # Each task's slurmstepd reports to slurmd on its way out.
    await 30 no_steps || true
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Our cluster.
port=$(free_port 127.0.0.1)
acls='{"run_tasks": [{"principals": {"type": "ANY"}, "users": {"values": ["root"]}}]}'
"$BUILD_DIR/src/master/mesos-master" --ip=127.0.0.1 --port="$port" --work_dir="$work/master" \
  --acls="$acls" >"$OUT/master.log" 2>&1 &
pids+=($!)
"$BUILD_DIR/src/slave/mesos-slave" --master="127.0.0.1:$port" --ip=127.0.0.2 \
  --hostname=127.0.0.2 --port="$(free_port 127.0.0.2)" --work_dir="$work/slave" \
  --resources="cpus:$slots;mem:8192;disk:4096" >"$OUT/slave.log" 2>&1 &
pids+=($!)
slave_active() {
  curl -sf "http://127.0.0.1:$port/metrics/snapshot" |
    python3 -c 'import json,sys; sys.exit(json.load(sys.stdin).get("master/slaves_active",0) < 1)'
}
await 30 slave_active || { echo "short_tasks: our cluster did not come up" >&2; exit 1; }
setup ours "1 mesos-master and 1 mesos-slave process (cpus:$slots), bench/short_tasks as 1 or 8 frameworks, command tasks"

# Slurm, when it can run here.
slurm_reason=""
if [ "$(id -u)" != 0 ]; then
  slurm_reason="needs root (slurmd runs the tasks as their user)"
elif ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  slurm_reason="slurm-wlm or munge is not installed (scripts/install-deps.sh installs them)"
fi
if [ -z "$slurm_reason" ]; then
  mkdir -m 0711 "$work/munge"
  head -c 1024 /dev/urandom >"$work/munge/key"
  chmod 0600 "$work/munge/key"
  munged --foreground --force --socket="$work/munge/socket" --key-file="$work/munge/key" \
    --log-file="$work/munge/log" --pid-file="$work/munge/pid" --seed-file="$work/munge/seed" >"$OUT/munged.log" 2>&1 &
  pids+=($!)
  mkdir "$work/slurm-state" "$work/slurm-spool"
  export SLURM_CONF="$work/slurm.conf"
  cat >"$SLURM_CONF" <<CONF
ClusterName=evaluation
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port 127.0.0.1)
SlurmdPort=$(free_port 127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/slurm-state
SlurmdSpoolDir=$work/slurm-spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$OUT/slurmctld.log
SlurmdLogFile=$OUT/slurmd.log
SlurmctldDebug=error
SlurmdDebug=error
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,default_queue_depth=1000
MinJobAge=2
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$slots RealMemory=8192 State=UNKNOWN
PartitionName=evaluation Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  slurmctld -D -c -f "$SLURM_CONF" >>"$OUT/slurmctld.log" 2>&1 &
  pids+=($!)
  slurmd -D -f "$SLURM_CONF" -N localhost >>"$OUT/slurmd.log" 2>&1 &
  pids+=($!)
  slurm_empty() { [ -z "$(squeue -h 2>/dev/null)" ]; }
  no_steps() { ! pgrep -x slurmstepd; }
  slurm_idle() { [ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ]; }
  if await 60 slurm_idle; then
    slurm_up=1
    setup slurm "$(slurmctld -V): slurmctld and slurmd on loopback, 1 node of CPUs=$slots, sched/builtin with batch_sched_delay=0 and sched_min_interval=0, a job array a batch"
  else
    slurm_reason="slurmctld and slurmd did not come up (logs in $OUT)"
  fi
fi
[ -z "$slurm_reason" ] || setup slurm "not measured: $slurm_reason"

# slurm_batch LENGTH TASKS: one job array of TASKS `sleep LENGTH`; prints
# short_tasks's figures for it, from the times the tasks wrote.
slurm_batch() {
  local length=$1 tasks=$2 times="$work/times-$1"
  rm -rf "$times"
  mkdir "$times"
  local submitted
  submitted=$(date +%s.%N)
  sbatch --quiet --array="1-$tasks" --output=/dev/null \
    --wrap="date +%s.%N >>$times/starts; sleep $length; date +%s.%N >>$times/ends"
  local ideal
  ideal=$(python3 -c "import sys; print(int($tasks * $length / $slots) + 1)")
  ended() { [ "$(cat "$times/ends" 2>/dev/null | wc -l)" -ge "$tasks" ]; }
  await $((10 * ideal + 120)) ended || {
    echo "short_tasks: Slurm ran $(cat "$times/ends" 2>/dev/null | wc -l) of $tasks tasks" >&2
    return 1
  }
  python3 - "$submitted" "$length" "$tasks" "$slots" "$times" <<'PY'
import sys
submitted, length, tasks, slots = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
starts = [float(line) for line in open(sys.argv[5] + "/starts")]
ends = [float(line) for line in open(sys.argv[5] + "/ends")]
makespan = max(ends) - submitted
work = tasks * length
print(f"makespan_s: {makespan:.3f} s")
print(f"utilization_percent: {100 * work / (slots * makespan):.1f} %")
print(f"tasks_per_s: {tasks / makespan:.2f} tasks/s")
print(f"overhead_per_task_ms: {1000 * (slots * makespan - work) / tasks:.1f} ms")
print(f"first_start_ms: {1000 * (min(starts) - submitted):.1f} ms")
PY
}

systems=(ours1 ours8)
[ "$slurm_up" = 0 ] || systems+=(slurm)
: >"$OUT/utilization.dat"
for length in "${lengths[@]}"; do
  tasks=$(tasks_for "$length")
  setup "tasks_of_${length}s" "$tasks"
  row="$length"
  for system in "${systems[@]}"; do
    log="$OUT/$system-${length}s.log"
    case "$system" in
      ours*)
        "$BUILD_DIR/bench/short_tasks" --master="127.0.0.1:$port" --frameworks="${system#ours}" \
          --tasks="$tasks" --task_seconds="$length" --slots="$slots" >"$log"
        ;;
      slurm) slurm_batch "$length" "$tasks" >"$log" ;;
    esac
    echo "short_tasks: $system, $tasks tasks of $length s: $(value "$log" utilization_percent)%" >&2
    for name in utilization_percent tasks_per_s overhead_per_task_ms first_start_ms \
      launch_latency_p50_ms; do
      v=$(value "$log" "$name")
      [ "$v" = nan ] || figure "${name}_${system}_${length}s" "$v" \
        "$(awk -v n="$name:" '$1 == n { print $3 }' "$log")"
    done
    row="$row $(value "$log" utilization_percent)"
  done
  echo "$row" >>"$OUT/utilization.dat"
done
setup load_after "$(cut -d' ' -f1-3 /proc/loadavg)"

plots="\"$OUT/utilization.dat\" using 1:2 with linespoints lw 2 pt 7 title \"ours, 1 framework\", \
  \"$OUT/utilization.dat\" using 1:3 with linespoints lw 2 pt 5 title \"ours, 8 frameworks\""
[ "$slurm_up" = 0 ] ||
  plots="$plots, \"$OUT/utilization.dat\" using 1:4 with linespoints lw 2 pt 9 title \"Slurm (job array)\""
gnuplot <<GNUPLOT
$(plot_header "$OUT/short_tasks.png" "Short tasks: utilization of one 8-cpu node against task length")
set xlabel "task length (s)"
set ylabel "utilization (%)"
set logscale x
set xrange [0.07:50]
set yrange [0:105]
set grid
set key bottom right
plot $plots, 90 with lines dt 2 lc rgb "gray" title "target: 90%"
GNUPLOT
