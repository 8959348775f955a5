#!/usr/bin/env python3
"""§6.1's macrobenchmark, run twice: four frameworks sharing one cluster,
then each alone on a static quarter of it (a cluster of its own: a master
and a quarter of the slaves). Called by macrobenchmark.sh:

    macrobenchmark.py BUILD_DIR OUT QUICK

It writes into OUT, for each mode (shared, static):
    shares-MODE.dat       t, then each framework's share of the cluster's cpus (%)
    utilization-MODE.dat  t, cpus allocated (%), memory allocated (%), cores
                          used (from the slaves' /monitor/statistics), RSS (GB)
    jobs-MODE.txt         framework, bin, seconds: one line a job
and appends `name: value unit` lines to OUT/figures.txt and OUT/setup.txt.
Every process it starts is stopped before it returns.
"""
import json
import math
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

BUILD, OUT, QUICK = sys.argv[1], sys.argv[2], sys.argv[3] == "1"

SLAVES = 8
SLAVE_RESOURCES = "cpus:4;mem:4096;disk:4096"
CLUSTER_CPUS, CLUSTER_MEM = SLAVES * 4, SLAVES * 4096
# The paper's Table 2 (the Facebook mix): bin, job type, maps, reduces (0:
# none), jobs in the mix of 100. Map counts are scaled by MAP_SCALE here.
TABLE2 = [(1, "selection", 1, 0, 38), (2, "text search", 2, 0, 18), (3, "aggregation", 10, 2, 14),
          (4, "selection", 50, 0, 12), (5, "aggregation", 100, 10, 6), (6, "selection", 200, 0, 6),
          (7, "text search", 400, 0, 4), (8, "join", 400, 30, 2)]
MAP_SCALE = 8
if QUICK:
    P = dict(map_seconds=0.3, mix_counts=[2, 1, 1, 1, 1, 0, 0, 0], arrival_mean=0.3,
             large_jobs=2, large_maps=16, spark_jobs=1, spark_gap=5, spark_points=20000,
             spark_iterations=3, spark_partitions=4, torque_jobs=2, torque_seconds=2,
             sample_every=0.5, deadline=180)
else:
    P = dict(map_seconds=2, mix_counts=[row[4] for row in TABLE2], arrival_mean=1.8,
             large_jobs=8, large_maps=112, spark_jobs=4, spark_gap=30, spark_points=500000,
             spark_iterations=150, spark_partitions=8, torque_jobs=6, torque_seconds=20,
             sample_every=1.0, deadline=900)
FRAMEWORKS = ["facebook", "large", "spark", "torque"]
NAMES = {"facebook": "MapReduce (Facebook mix)", "large": "MapReduce (large jobs)",
         "spark": "mesos-spark-lr /macro/points", "torque": "torque"}


def append(path, line):
    with open(os.path.join(OUT, path), "a") as f:
        f.write(line + "\n")


def figure(name, value, unit):
    append("figures.txt", f"{name}: {value} {unit}")


def setup(name, text):
    append("setup.txt", f"{name}: {text}")


def free_port(ip="127.0.0.1"):
    with socket.socket() as s:
        s.bind((ip, 0))
        return s.getsockname()[1]


def get_json(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return json.load(answer)


def post_json(url, body, timeout=10):
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return json.load(answer)


def await_true(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if predicate():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not happen within {seconds} s")


class Processes:
    """What a mode started, stopped in reverse order at the end."""

    def __init__(self, logs):
        self.logs = logs
        self.started = []

    def start(self, name, argv, env=None):
        log = open(os.path.join(self.logs, name + ".log"), "w")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, **(env or {})}, start_new_session=True)
        self.started.append((process, log))
        return process

    def stop(self):
        for process, _ in reversed(self.started):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process, log in reversed(self.started):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            log.close()
        self.started = []


def make_inputs(work, nodes):
    """The MapReduce inputs (one file per map count, one block per map) and
    Spark's points, in a block store under work/dfs."""
    dfs = os.path.join(BUILD, "frameworks/dfs/mesos-dfs")
    env = {**os.environ, "MESOS_DFS_ROOT": os.path.join(work, "dfs")}
    counts = {math.ceil(maps / MAP_SCALE) for (_, _, maps, _, n), k in
              zip(TABLE2, P["mix_counts"]) if k > 0} | {P["large_maps"]}
    for maps in sorted(counts):
        text = os.path.join(work, f"input-{maps}.txt")
        subprocess.run([dfs, "generate", f"--output={text}", "--answers=/dev/null",
                        f"--lines={maps * 500}", f"--seed={maps}"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        subprocess.run([dfs, "put", text, f"/macro/input-{maps}", f"--nodes={nodes}",
                        "--replication=3", "--block_size=20000"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
    lr = os.path.join(BUILD, "frameworks/spark/mesos-spark-lr")
    points = P["spark_points"]
    subprocess.run([lr, "generate", f"--root={os.path.join(work, 'dfs')}", "--file=/macro/points",
                    f"--nodes={nodes}", f"--points={points}", "--dims=10",
                    f"--block_size={points * 97 // P['spark_partitions'] + 1}",
                    "--replication=2"], check=True, stdout=subprocess.DEVNULL)


class Sampler(threading.Thread):
    """Every sample_every seconds: each framework's allocation from the
    masters, and the slaves' usage from /monitor/statistics."""

    def __init__(self, masters, slaves, mode):
        super().__init__(daemon=True)
        self.masters, self.slaves, self.mode = masters, slaves, mode
        self.stopping = threading.Event()
        self.shares, self.usage = [], []
        self.start_time = time.time()
        self.last_cpu = {}  # (slave, executor, container) -> cpu seconds

    def run(self):
        previous = None
        while not self.stopping.wait(P["sample_every"]):
            now = time.time()
            cpus = {name: 0.0 for name in FRAMEWORKS}
            used_cpus = used_mem = 0.0
            for master in self.masters:
                try:
                    state = get_json(f"http://{master}/master/state")
                except OSError:
                    continue
                for framework in state.get("frameworks", []):
                    used = framework.get("used_resources", {})
                    used_cpus += used.get("cpus", 0)
                    used_mem += used.get("mem", 0)
                    for name in FRAMEWORKS:
                        if framework.get("name") == NAMES[name]:
                            cpus[name] += used.get("cpus", 0)
            cpu_seconds = 0.0
            rss = 0.0
            for slave in self.slaves:
                try:
                    executors = get_json(f"http://{slave}/monitor/statistics")
                except OSError:
                    continue
                for executor in executors:
                    stats = executor.get("statistics", {})
                    key = (slave, executor.get("framework_id"), executor.get("executor_id"))
                    total = stats.get("cpus_user_time_secs", 0) + stats.get("cpus_system_time_secs", 0)
                    # An executor seen for the first time counts from zero.
                    cpu_seconds += max(0.0, total - self.last_cpu.get(key, 0.0))
                    self.last_cpu[key] = total
                    rss += stats.get("mem_rss_bytes", 0)
            t = now - self.start_time
            self.shares.append([t] + [100 * cpus[name] / CLUSTER_CPUS for name in FRAMEWORKS])
            cores = cpu_seconds / (now - previous) if previous else 0.0
            previous = now
            self.usage.append([t, 100 * used_cpus / CLUSTER_CPUS, 100 * used_mem / CLUSTER_MEM,
                               cores, rss / 2**30])

    def finish(self):
        self.stopping.set()
        self.join()
        with open(os.path.join(OUT, f"shares-{self.mode}.dat"), "w") as f:
            for row in self.shares:
                f.write(" ".join(f"{v:.3f}" for v in row) + "\n")
        with open(os.path.join(OUT, f"utilization-{self.mode}.dat"), "w") as f:
            for row in self.usage[1:]:  # the first has no cpu interval
                f.write(" ".join(f"{v:.3f}" for v in row) + "\n")


class Workloads:
    """The four frameworks' jobs against the masters given (one each)."""

    def __init__(self, mode, masters, work, procs):
        self.mode, self.masters, self.work, self.procs = mode, masters, work, procs
        self.jobs = []  # (framework, bin, seconds)
        self.errors = []
        self.lock = threading.Lock()
        self.env = {"MESOS_DFS_ROOT": os.path.join(work, "dfs")}

    def record(self, framework, bin_, seconds):
        with self.lock:
            self.jobs.append((framework, bin_, seconds))

    def jobtracker(self, name, master):
        port = free_port()
        self.procs.start(f"jobtracker-{name}-{self.mode}", [
            os.path.join(BUILD, "frameworks/mapreduce/mesos-mapreduce"), "jobtracker",
            f"--master={master}", "--ip=127.0.0.1", f"--port={port}", f"--locality_wait={P['map_seconds'] / 2}",
            f"--framework_name={NAMES[name]}", "--speculation=false"], self.env)
        url = f"http://127.0.0.1:{port}"
        await_true(lambda: get_json(url + "/jobs") is not None, 30, f"the {name} JobTracker")
        return url

    def submit(self, url, name, bin_, maps, reduces, index):
        """Submits a streaming job; returns its id."""
        spec = {"type": "streaming", "input": f"/macro/input-{maps}",
                "output": os.path.join(self.work, f"out-{self.mode}-{name}-{index}"),
                "reduces": max(reduces, 1), "name": f"{name} {index} bin {bin_}",
                "map_command": f"sleep {P['map_seconds']}; cat"}
        if reduces:
            spec["reduce_command"] = "cat"
        return post_json(url + "/jobs", spec)["id"]

    def collect(self, url, name, ids, submitting=None):
        """Polls the JobTracker's reports until every job in ids (which
        grows while submitting is alive) is over; records each."""
        done = set()
        while True:
            alive = submitting is not None and submitting.is_alive()
            wanted = set(ids)
            for report in get_json(url + "/jobs"):
                job = report.get("id")
                if job not in wanted or job in done or report.get("state") == "running":
                    continue
                if report.get("state") != "succeeded":
                    raise RuntimeError(f"{name} job {job}: {report.get('state')}: "
                                       f"{report.get('error')}")
                done.add(job)
                self.record(name, int(report.get("name", "bin 0").rsplit(" ", 1)[1]),
                            report["seconds"])
            if not alive and done >= wanted:
                return
            time.sleep(0.5)

    def facebook(self, master):
        url = self.jobtracker("facebook", master)
        rng = random.Random(2011)
        mix = [(b, math.ceil(maps / MAP_SCALE), math.ceil(r / MAP_SCALE))
               for (b, _, maps, r, _), k in zip(TABLE2, P["mix_counts"]) for _ in range(k)]
        rng.shuffle(mix)
        ids = []

        def submit_all():
            for index, (bin_, maps, reduces) in enumerate(mix):
                ids.append(self.submit(url, "facebook", bin_, maps, reduces, index))
                time.sleep(rng.expovariate(1 / P["arrival_mean"]))

        submitting = threading.Thread(target=self.guard, args=(submit_all,))
        submitting.start()
        self.collect(url, "facebook", ids, submitting)
        submitting.join()

    def large(self, master):
        url = self.jobtracker("large", master)
        for index in range(P["large_jobs"]):
            self.collect(url, "large", [self.submit(url, "large", 0, P["large_maps"], 0, index)])

    def spark(self, master):
        lr = os.path.join(BUILD, "frameworks/spark/mesos-spark-lr")
        threads = []

        def one(index):
            start = time.time()
            name = f"spark-{self.mode}-{index}"
            status = self.procs.start(name, [
                lr, "run", f"--master={master}", f"--root={self.env['MESOS_DFS_ROOT']}",
                "--file=/macro/points", f"--iterations={P['spark_iterations']}",
                "--task_cpus=0.5", f"--locality_wait={P['map_seconds'] / 2}"]).wait()
            if status != 0:
                raise RuntimeError(f"spark job {index} exited {status} (logs/{name}.log)")
            self.record("spark", 0, time.time() - start)

        for index in range(P["spark_jobs"]):
            if index:
                time.sleep(P["spark_gap"])
            thread = threading.Thread(target=self.guard, args=(one, index))
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()

    def torque(self, master):
        port = free_port()
        self.procs.start(f"torque-server-{self.mode}", [
            os.path.join(BUILD, "frameworks/torque/mesos-torque-server"), f"--master={master}",
            "--ip=127.0.0.1", f"--port={port}", "--name=torque", "--node_cpus=2",
            "--node_mem=1024", "--max_nodes=2", "--idle_timeout=5", "--decline_seconds=1"])
        server = f"127.0.0.1:{port}"
        await_true(lambda: get_json(f"http://{server}/status") is not None, 30, "the torque server")
        script = os.path.join(self.work, "mpi-job.sh")
        with open(script, "w") as f:
            # An MPI job of fixed width (2 nodes of 2 cpus), time-scaled: it
            # holds its nodes for its length.
            f.write(f"#!/bin/sh\nsleep {P['torque_seconds']}\n")
        outputs = os.path.join(self.work, f"torque-{self.mode}")
        os.makedirs(outputs, exist_ok=True)
        qsub = os.path.join(BUILD, "frameworks/torque/mesos-qsub")
        for index in range(P["torque_jobs"]):
            start = time.time()
            status = subprocess.run([qsub, f"--server={server}", "-l", "nodes=2:ppn=2",
                                     "-W", "block=true", "-o", outputs, "-e", outputs,
                                     "-d", outputs,
                                     "-N", f"mpi{index}", script],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if status.returncode != 0:
                raise RuntimeError(f"torque job {index}: exit {status.returncode}: {status.stderr}")
            self.record("torque", 0, time.time() - start)

    def guard(self, function, *args):
        try:
            function(*args)
        except Exception as error:  # noqa: BLE001 -- reported, and the run fails
            with self.lock:
                self.errors.append(f"{self.mode}: {error}")

    def run(self):
        threads = [threading.Thread(target=self.guard, args=(getattr(self, name), master),
                                    daemon=True)
                   for name, master in zip(FRAMEWORKS, self.masters)]
        for thread in threads:
            thread.start()
        deadline = time.time() + P["deadline"]
        for thread in threads:
            thread.join(max(0.0, deadline - time.time()))
        late = [name for name, thread in zip(FRAMEWORKS, threads) if thread.is_alive()]
        if late:
            # Stopping the daemons ends the threads' requests and commands.
            raise RuntimeError(f"{self.mode}: {', '.join(late)} not done after "
                               f"{P['deadline']} s")


def run_mode(mode, work):
    logs = os.path.join(OUT, "logs")
    os.makedirs(logs, exist_ok=True)
    procs = Processes(logs)
    acls = json.dumps({"run_tasks": [{"principals": {"type": "ANY"},
                                      "users": {"values": ["root"]}}]})
    groups = [list(range(SLAVES))] if mode == "shared" else \
        [list(range(i, i + SLAVES // 4)) for i in range(0, SLAVES, SLAVES // 4)]
    masters, slaves = [], []
    try:
        for g, members in enumerate(groups):
            port = free_port()
            procs.start(f"master-{mode}-{g}", [
                os.path.join(BUILD, "src/master/mesos-master"), "--ip=127.0.0.1",
                f"--port={port}", f"--work_dir={work}/master-{mode}-{g}", f"--acls={acls}"])
            masters.append(f"127.0.0.1:{port}")
            for i in members:
                ip = f"127.0.3.{i + 2}"
                slave_port = free_port(ip)
                procs.start(f"slave-{mode}-{ip}", [
                    os.path.join(BUILD, "src/slave/mesos-slave"), f"--master=127.0.0.1:{port}",
                    f"--ip={ip}", f"--hostname={ip}", f"--port={slave_port}",
                    f"--work_dir={work}/slave-{mode}-{ip}", f"--resources={SLAVE_RESOURCES}",
                    f"--attributes=rack:r{1 + 2 * i // SLAVES}"])
                slaves.append(f"{ip}:{slave_port}")
        for g, members in enumerate(groups):
            await_true(lambda: get_json(f"http://{masters[g]}/metrics/snapshot")
                       .get("master/slaves_active", 0) >= len(members), 60, f"{mode} cluster {g}")
        per_framework = masters * 4 if mode == "shared" else masters
        sampler = Sampler(masters, slaves, mode)
        sampler.start()
        workloads = Workloads(mode, per_framework, work, procs)
        started = time.time()
        workloads.run()
        elapsed = time.time() - started
        sampler.finish()
    finally:
        procs.stop()
    if workloads.errors:
        raise RuntimeError("; ".join(workloads.errors))
    with open(os.path.join(OUT, f"jobs-{mode}.txt"), "w") as f:
        for framework, bin_, seconds in workloads.jobs:
            f.write(f"{framework} {bin_} {seconds:.3f}\n")
    figure(f"run_s_{mode}", f"{elapsed:.1f}", "s")
    return workloads.jobs, sampler


def main():
    work = tempfile.mkdtemp(prefix="mesos-macrobenchmark.")
    try:
        nodes = ",".join(f"127.0.3.{i + 2}:r{1 + 2 * i // SLAVES}" for i in range(SLAVES))
        make_inputs(work, nodes)
        mix = sum(P["mix_counts"])
        setup("cluster", f"{SLAVES} slave processes ({SLAVE_RESOURCES} each, {CLUSTER_CPUS} cpus "
              "in all) on this machine; static: 4 clusters of a master and 2 of those slaves "
              "each, one framework on each; shared: one master and all 8, the four frameworks "
              "under DRF")
        setup("facebook_mix", f"{mix} MapReduce jobs in the paper's Table 2 bins (maps / "
              f"{MAP_SCALE}, rounded up), exponential inter-arrival times of mean "
              f"{P['arrival_mean']} s, one JobTracker")
        setup("large_mix", f"{P['large_jobs']} jobs of {P['large_maps']} maps back to back, "
              "one JobTracker")
        setup("map_tasks", f"streaming maps of 0.5 cpu that sleep {P['map_seconds']} s "
              f"(time-scaled work), a locality wait of half that, input blocks with 3 copies over all slaves")
        setup("spark", f"{P['spark_jobs']} mesos-spark-lr jobs of {P['spark_iterations']} "
              f"iterations over {P['spark_points']} points ({P['spark_partitions']} "
              f"partitions of 0.5 cpu), submitted {P['spark_gap']} s apart")
        setup("torque", f"{P['torque_jobs']} MPI-style jobs of 2 nodes of 2 cpus back to back, "
              f"each holding its nodes {P['torque_seconds']} s (time-scaled)")
        results = {}
        for mode in ("static", "shared"):
            print(f"macrobenchmark: {mode} run", file=sys.stderr, flush=True)
            results[mode] = run_mode(mode, work)
        summarize(results)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def summarize(results):
    for framework in FRAMEWORKS:
        sums = {}
        for mode, (jobs, _) in results.items():
            times = [s for f, _, s in jobs if f == framework]
            sums[mode] = sum(times)
            figure(f"job_time_sum_s_{framework}_{mode}", f"{sums[mode]:.1f}", "s")
            figure(f"jobs_{framework}_{mode}", len(times), "jobs")
        if sums["shared"] > 0:
            figure(f"speedup_{framework}", f"{sums['static'] / sums['shared']:.2f}", "x")
    for bin_ in range(1, 9):
        means = {}
        for mode, (jobs, _) in results.items():
            times = [s for f, b, s in jobs if f == "facebook" and b == bin_]
            if times:
                means[mode] = statistics.mean(times)
                figure(f"bin{bin_}_job_s_mean_{mode}", f"{means[mode]:.2f}", "s")
        if len(means) == 2 and means["shared"] > 0:
            figure(f"bin{bin_}_speedup", f"{means['static'] / means['shared']:.2f}", "x")
    for mode, (_, sampler) in results.items():
        rows = sampler.usage[1:]
        if not rows:
            continue
        for column, name, unit in ((1, "cpus_allocated_pct_mean", "%"),
                                   (2, "mem_allocated_pct_mean", "%"),
                                   (3, "cores_used_mean", "cores"), (4, "rss_gb_mean", "GB")):
            figure(f"{name}_{mode}", f"{statistics.mean(r[column] for r in rows):.2f}", unit)


def interrupted(signum, _frame):
    raise RuntimeError(f"stopped by signal {signum}")


if __name__ == "__main__":
    # SIGTERM (a timeout, ^C from evaluate.sh) still stops what was started.
    signal.signal(signal.SIGTERM, interrupted)
    try:
        main()
    except Exception as error:  # noqa: BLE001 -- one line, and a failed experiment
        print(f"macrobenchmark: {error}", file=sys.stderr)
        sys.exit(1)
