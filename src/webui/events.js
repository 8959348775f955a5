// The master's event stream for the web UI (docs/web-ui.md, "Live or
// polling"): one SUBSCRIBE to /api/v1 (docs/operator-http-api.md), read as
// RecordIO records of JSON events, kept as a document shaped like
// /state-summary that app.js renders as it renders a polled one.
//
//   const feed = MesosEvents.follow(url, {
//     maxSubscribedBytes,   // a larger SUBSCRIBED is not read (see below)
//     previous,             // the last /state-summary, if any (pids, hostname)
//     subscribed(summary),  // the state, once; the object is then kept current
//     changed(),            // after each event that changed it
//     ended(reason, permanent),  // once: the stream is over (permanent: it
//                                // was refused, do not ask again)
//   });
//   feed.takeChanges()   -> {frameworks: Set of ids, slaves: Set of ids}
//                           touched since the last call
//   feed.activeTasks(n)  -> the newest n live tasks [{id, name, state,
//                           framework_id, slave_id}]
//   feed.liveTaskCount() -> how many tasks it keeps (the live ones)
//   feed.close()         ends it without calling ended().
//
// What it keeps: the summary's slaves and frameworks (as /state-summary
// has them, without the lists of ids that the page does not show) and one
// small entry per live task (its state, framework,
// slave, name and scalar resources), so that an update, which names only
// the task and its new state, can move the counts. Completed tasks are
// counted, not kept. SUBSCRIBED carries every task and agent of the
// cluster: its length comes first, and one longer than maxSubscribedBytes
// ends the stream (permanently) before it is read.
'use strict';

(function () {
  const STATES = ['TASK_STAGING', 'TASK_STARTING', 'TASK_RUNNING', 'TASK_KILLING', 'TASK_FINISHED',
    'TASK_FAILED', 'TASK_KILLED', 'TASK_LOST', 'TASK_ERROR', 'TASK_DROPPED', 'TASK_UNREACHABLE',
    'TASK_GONE', 'TASK_GONE_BY_OPERATOR', 'TASK_UNKNOWN'];
  // The states a task never leaves (Apache's isTerminalState).
  const TERMINAL = new Set(['TASK_FINISHED', 'TASK_FAILED', 'TASK_KILLED', 'TASK_LOST',
    'TASK_ERROR', 'TASK_DROPPED', 'TASK_GONE', 'TASK_GONE_BY_OPERATOR']);
  const LIVE = new Set(['TASK_STAGING', 'TASK_STARTING', 'TASK_RUNNING', 'TASK_KILLING']);
  const SCALARS = ['cpus', 'mem', 'disk', 'gpus'];
  const MAX_EVENT_BYTES = 16 << 20;  // any record after SUBSCRIBED
  // Silence longer than this (heartbeats come every 15 s) ends the stream.
  const MIN_SILENCE_MS = 45000;

  function supported() {
    return typeof window.fetch === 'function' && typeof window.ReadableStream === 'function' &&
      typeof window.Response === 'function' && 'body' in window.Response.prototype &&
      typeof window.TextDecoder === 'function' && typeof window.AbortController === 'function';
  }

  function id(x) { return x && x.value !== undefined ? x.value : ''; }
  function seconds(t) { return t && t.nanoseconds !== undefined ? Number(t.nanoseconds) / 1e9 : 0; }

  function roleOf(r) {
    if (r.reservations && r.reservations.length) return r.reservations[r.reservations.length - 1].role || '*';
    return r.role || '*';
  }

  // v1 resources -> {cpus, gpus, mem, disk, ports: "[a-b, c-d]", ...}, as
  // /state-summary shows them (the roles merged).
  function resources(list, onlyRole) {
    const out = { cpus: 0, gpus: 0, mem: 0, disk: 0 };
    const ranges = {}, sets = {};
    for (const r of list || []) {
      if (onlyRole !== undefined && roleOf(r) !== onlyRole) continue;
      if (r.scalar) out[r.name] = (out[r.name] || 0) + Number(r.scalar.value || 0);
      else if (r.ranges) (ranges[r.name] = ranges[r.name] || []).push(...(r.ranges.range || []));
      else if (r.set) (sets[r.name] = sets[r.name] || []).push(...(r.set.item || []));
    }
    for (const [name, list2] of Object.entries(ranges)) {
      out[name] = '[' + list2.map((x) => x.begin + '-' + x.end).join(', ') + ']';
    }
    for (const [name, items] of Object.entries(sets)) out[name] = '{' + items.join(', ') + '}';
    return out;
  }

  function reserved(list) {
    const roles = new Set((list || []).map(roleOf).filter((role) => role !== '*'));
    const out = {};
    for (const role of roles) out[role] = resources(list, role);
    return out;
  }

  function attributes(list) {
    const out = {};
    for (const a of list || []) {
      if (a.text) out[a.name] = a.text.value;
      else if (a.scalar) out[a.name] = a.scalar.value;
      else if (a.ranges) out[a.name] = '[' + (a.ranges.range || []).map((x) => x.begin + '-' + x.end).join(', ') + ']';
      else if (a.set) out[a.name] = '{' + (a.set.item || []).join(', ') + '}';
    }
    return out;
  }

  function zeroCounts(entry) {
    for (const state of STATES) entry[state] = 0;
    return entry;
  }

  function scalarsOf(list) {
    const r = resources(list);
    return SCALARS.map((name) => r[name] || 0);
  }

  function addScalars(target, scalars, sign) {
    if (!target) return;
    SCALARS.forEach((name, i) => { target[name] = Math.max(0, (target[name] || 0) + sign * scalars[i]); });
  }

  function slaveOf(agent) {
    const info = agent.agent_info || {};
    return zeroCounts({
      id: id(info.id),
      pid: agent.pid || '',
      hostname: info.hostname || '',
      port: info.port,
      registered_time: seconds(agent.registered_time),
      resources: resources(agent.total_resources),
      reserved_resources: reserved(agent.total_resources),
      unreserved_resources: resources(agent.total_resources, '*'),
      attributes: attributes(info.attributes),
      version: agent.version || '',
      used_resources: resources(agent.allocated_resources),
      offered_resources: resources(agent.offered_resources),
      active: agent.active !== false,
      deactivated: !!agent.deactivated,
      drain_info: agent.drain_info,
      estimated_drain_start_time_seconds: agent.estimated_drain_start_time ? seconds(agent.estimated_drain_start_time) : undefined,
    });
  }

  // The fields of a framework that come with it (not its counts).
  function frameworkFields(f, previousPid) {
    const info = f.framework_info || {};
    return {
      id: id(info.id),
      name: info.name || '',
      pid: previousPid === undefined ? null : previousPid,  // null: the stream does not say
      used_resources: resources(f.allocated_resources),
      offered_resources: resources(f.offered_resources),
      capabilities: (info.capabilities || []).map((c) => c.type).filter((t) => t),
      hostname: info.hostname || '',
      webui_url: info.webui_url || '',
      active: f.active !== false,
    };
  }

  // The document: slaves and frameworks of /state-summary, and the live
  // tasks by "framework id\ntask id".
  class Model {
    constructor(state, previous) {
      const pids = new Map();
      if (previous) for (const f of previous.frameworks || []) pids.set(f.id, f.pid);
      this.pids = pids;
      this.summary = { hostname: previous ? previous.hostname : undefined,
        cluster: previous ? previous.cluster : undefined, slaves: [], frameworks: [], live: true };
      this.slaves = new Map();
      this.frameworks = new Map();
      this.tasks = new Map();
      this.changes = { frameworks: new Set(), slaves: new Set() };
      const agents = (state.get_agents || {}).agents || [];
      for (const agent of agents) this.putSlave(slaveOf(agent));
      for (const f of (state.get_frameworks || {}).frameworks || []) this.putFramework(f);
      const tasks = state.get_tasks || {};
      for (const task of tasks.tasks || []) this.taskAdded(task, false);
      for (const task of tasks.completed_tasks || []) this.count(id(task.framework_id), id(task.agent_id), task.state, 1);
    }

    putSlave(slave) {
      const old = this.slaves.get(slave.id);
      if (old) {
        // Re-registered: what it says now, its counts kept.
        for (const state of STATES) slave[state] = old[state];
        Object.keys(old).forEach((k) => delete old[k]);
        Object.assign(old, slave);
      } else {
        this.slaves.set(slave.id, slave);
        this.summary.slaves.push(slave);
      }
      this.changes.slaves.add(slave.id);
    }

    removeSlave(slaveId) {
      const s = this.slaves.get(slaveId);
      if (!s) return;
      this.slaves.delete(slaveId);
      this.summary.slaves.splice(this.summary.slaves.indexOf(s), 1);
      this.changes.slaves.add(slaveId);
    }

    putFramework(f) {
      const fields = frameworkFields(f, this.pids.get(id((f.framework_info || {}).id)));
      const old = this.frameworks.get(fields.id);
      if (old) {
        Object.assign(old, fields);
      } else {
        const entry = zeroCounts(fields);
        this.frameworks.set(entry.id, entry);
        this.summary.frameworks.push(entry);
      }
      this.changes.frameworks.add(fields.id);
    }

    removeFramework(frameworkId) {
      const f = this.frameworks.get(frameworkId);
      if (!f) return;
      this.frameworks.delete(frameworkId);
      this.summary.frameworks.splice(this.summary.frameworks.indexOf(f), 1);
      for (const [key, task] of this.tasks) if (task.framework_id === frameworkId) this.tasks.delete(key);
      this.changes.frameworks.add(frameworkId);
    }

    // As /state-summary counts: only the tasks of registered frameworks.
    count(frameworkId, slaveId, state, n) {
      const f = this.frameworks.get(frameworkId);
      if (!f || !state) return;
      f[state] = (f[state] || 0) + n;
      this.changes.frameworks.add(frameworkId);
      const s = this.slaves.get(slaveId);
      if (s) {
        s[state] = (s[state] || 0) + n;
        this.changes.slaves.add(slaveId);
      }
    }

    // `launched`: a new task (its resources come out of an offer), not
    // one of those SUBSCRIBED lists, which the used figures hold already.
    taskAdded(task, launched) {
      const frameworkId = id(task.framework_id);
      const slaveId = id(task.agent_id);
      const entry = { id: id(task.task_id), name: task.name || '', state: task.state || 'TASK_STAGING',
        framework_id: frameworkId, slave_id: slaveId, scalars: scalarsOf(task.resources) };
      const key = frameworkId + '\n' + entry.id;
      if (this.tasks.has(key)) return;
      this.count(frameworkId, slaveId, entry.state, 1);
      if (TERMINAL.has(entry.state)) return;
      this.tasks.set(key, entry);
      if (launched) {
        const f = this.frameworks.get(frameworkId), s = this.slaves.get(slaveId);
        addScalars(f && f.used_resources, entry.scalars, 1);
        addScalars(f && f.offered_resources, entry.scalars, -1);
        addScalars(s && s.used_resources, entry.scalars, 1);
        addScalars(s && s.offered_resources, entry.scalars, -1);
      }
    }

    taskUpdated(update) {
      const status = update.status || {};
      const frameworkId = id(update.framework_id);
      const taskId = id(status.task_id);
      const state = update.state || status.state;
      const key = frameworkId + '\n' + taskId;
      const task = this.tasks.get(key);
      if (!task) {
        this.count(frameworkId, id(status.agent_id), state, 1);
        return;
      }
      this.count(frameworkId, task.slave_id, task.state, -1);
      this.count(frameworkId, task.slave_id, state, 1);
      task.state = state;
      if (TERMINAL.has(state)) {
        this.tasks.delete(key);
        const f = this.frameworks.get(frameworkId), s = this.slaves.get(task.slave_id);
        addScalars(f && f.used_resources, task.scalars, -1);
        addScalars(s && s.used_resources, task.scalars, -1);
      }
    }

    apply(event) {
      switch (event.type) {
        case 'TASK_ADDED': this.taskAdded(event.task_added.task, true); break;
        case 'TASK_UPDATED': this.taskUpdated(event.task_updated); break;
        case 'AGENT_ADDED': this.putSlave(slaveOf(event.agent_added.agent)); break;
        case 'AGENT_REMOVED': this.removeSlave(id(event.agent_removed.agent_id)); break;
        case 'FRAMEWORK_ADDED': this.putFramework(event.framework_added.framework); break;
        case 'FRAMEWORK_UPDATED': this.putFramework(event.framework_updated.framework); break;
        case 'FRAMEWORK_REMOVED': this.removeFramework(id((event.framework_removed.framework_info || {}).id)); break;
        default: return false;  // HEARTBEAT, and events this page does not show
      }
      return true;
    }

    takeChanges() {
      const changes = this.changes;
      this.changes = { frameworks: new Set(), slaves: new Set() };
      return changes;
    }

    activeTasks(n) {
      const newest = [];
      for (const task of this.tasks.values()) {
        if (!LIVE.has(task.state)) continue;
        newest.push(task);
        if (newest.length > n) newest.shift();
      }
      return newest.reverse();
    }
  }

  // RecordIO: "<length>\n<length bytes>", again and again. push() calls
  // onRecord(bytes) for each complete record; throws on a malformed header
  // or a record longer than limit(recordIndex).
  class RecordReader {
    constructor(limit, onRecord) {
      this.limit = limit;
      this.onRecord = onRecord;
      this.header = '';
      this.record = null;
      this.filled = 0;
      this.count = 0;
    }

    push(chunk) {
      let at = 0;
      while (at < chunk.length) {
        if (this.record === null) {
          const c = chunk[at++];
          if (c !== 10) {
            if (c < 48 || c > 57 || this.header.length > 12) throw new Error('a record header that is no length');
            this.header += String.fromCharCode(c);
            continue;
          }
          const length = Number(this.header);
          this.header = '';
          const limit = this.limit(this.count);
          if (length > limit) {
            const error = new Error((this.count === 0 ? 'SUBSCRIBED' : 'an event') + ' is ' +
              Math.round(length / 1048576) + ' MiB, more than this page reads (' + Math.round(limit / 1048576) + ' MiB)');
            error.tooBig = true;
            throw error;
          }
          this.record = new Uint8Array(length);
          this.filled = 0;
        }
        const take = Math.min(this.record.length - this.filled, chunk.length - at);
        this.record.set(chunk.subarray(at, at + take), this.filled);
        this.filled += take;
        at += take;
        if (this.filled === this.record.length) {
          const record = this.record;
          this.record = null;
          this.count++;
          this.onRecord(record);
        }
      }
    }
  }

  // Refusals that asking again will not change.
  const PERMANENT = new Set([400, 401, 403, 404, 405, 406, 415, 501]);

  function follow(url, options) {
    const controller = new AbortController();
    let model = null;
    let over = false;
    let silence = MIN_SILENCE_MS;
    let watchdog = null;

    function end(reason, permanent) {
      if (over) return;
      over = true;
      clearTimeout(watchdog);
      controller.abort();
      options.ended(reason, permanent);
    }

    function quiet() {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => end('no event nor heartbeat for ' + Math.round(silence / 1000) + ' s', false), silence);
    }

    const decoder = new TextDecoder();
    const reader = new RecordReader((n) => (n === 0 ? options.maxSubscribedBytes : MAX_EVENT_BYTES), (bytes) => {
      const event = JSON.parse(decoder.decode(bytes));
      if (model === null) {
        if (event.type !== 'SUBSCRIBED') throw new Error('the stream began with ' + event.type + ', not SUBSCRIBED');
        const subscribed = event.subscribed || {};
        silence = Math.max(MIN_SILENCE_MS, 3000 * (subscribed.heartbeat_interval_seconds || 15));
        model = new Model(subscribed.get_state || {}, options.previous);
        model.takeChanges();
        options.subscribed(model.summary);
      } else if (model.apply(event)) {
        options.changed();
      }
    });

    (async () => {
      let response;
      try {
        response = await fetch(url, {
          method: 'POST', cache: 'no-store', redirect: 'manual', signal: controller.signal,
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ type: 'SUBSCRIBE' }),
        });
      } catch (error) {
        end('cannot reach ' + url + ': ' + error.message, false);
        return;
      }
      if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
        end('this master sends SUBSCRIBE elsewhere (it is not the leader)', false);
        return;
      }
      if (!response.ok) {
        let text = '';
        try { text = (await response.text()).trim().split('\n')[0]; } catch (e) { /* gone */ }
        end('SUBSCRIBE answered ' + response.status + (text ? ': ' + text : ''), PERMANENT.has(response.status));
        return;
      }
      const body = response.body.getReader();
      quiet();
      try {
        for (;;) {
          const { value, done } = await body.read();
          if (over) return;
          if (done) break;
          quiet();
          reader.push(value);
        }
        end('the master ended the stream', false);
      } catch (error) {
        end(error.name === 'AbortError' ? 'stream aborted' : error.message, !!error.tooBig);
      }
    })();

    return {
      takeChanges() { return model ? model.takeChanges() : { frameworks: new Set(), slaves: new Set() }; },
      activeTasks(n) { return model ? model.activeTasks(n) : []; },
      liveTaskCount() { return model ? model.tasks.size : 0; },
      close() { over = true; clearTimeout(watchdog); controller.abort(); },
    };
  }

  window.MesosEvents = { supported, follow };
})();
