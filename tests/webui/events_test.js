// Checks of src/webui/events.js against scripted answers (a stubbed
// fetch), run in headless Chromium by events_test.py after events.js
// itself. Evaluates to a promise of the list of failed checks (empty when
// every one holds).
(async () => {
  const failures = [];
  const check = (what, ok, got) => { if (!ok) failures.push(what + ' (got ' + JSON.stringify(got) + ')'); };
  const encoder = new TextEncoder();
  const record = (event) => {
    const json = JSON.stringify(event);
    return encoder.encode(json).length + '\n' + json;
  };
  const scalars = (cpus, mem) => [{ name: 'cpus', type: 'SCALAR', scalar: { value: cpus } },
    { name: 'mem', type: 'SCALAR', scalar: { value: mem } }];
  const taskOf = (id, state, cpus, mem) => ({ task_id: { value: id }, name: 'name-' + id,
    framework_id: { value: 'F1' }, agent_id: { value: 'S1' }, state, resources: scalars(cpus, mem) });
  const update = (id, state) => ({ type: 'TASK_UPDATED', task_updated: { framework_id: { value: 'F1' },
    status: { task_id: { value: id }, agent_id: { value: 'S1' } }, state } });

  // Answers `body` (bytes, given in pieces of `piece` bytes) with `status`.
  function answer(status, body, piece) {
    window.fetch = async (url, init) => {
      window.lastRequest = { url, init };
      if (status !== 200) return new Response(body, { status });
      const bytes = encoder.encode(body);
      return new Response(new ReadableStream({ start(controller) {
        for (let i = 0; i < bytes.length; i += piece) controller.enqueue(bytes.slice(i, i + piece));
        controller.close();
      } }), { status: 200 });
    };
  }

  // Follows one scripted stream to its end.
  function follow(maxSubscribedBytes, previous) {
    return new Promise((resolve) => {
      const seen = { subscribed: null, changed: 0 };
      const feed = window.MesosEvents.follow('api/v1', {
        maxSubscribedBytes, previous,
        subscribed(summary) { seen.subscribed = summary; },
        changed() { seen.changed++; },
        ended(reason, permanent) { resolve(Object.assign(seen, { reason, permanent, feed })); },
      });
    });
  }

  check('supported() in Chromium', window.MesosEvents.supported(), false);

  // A cluster: one slave, one framework with a running task and a
  // finished one; then a launch, its updates, the first task's end, a new
  // slave, a heartbeat, the second slave's removal.
  const subscribed = { type: 'SUBSCRIBED', subscribed: { heartbeat_interval_seconds: 15, get_state: {
    get_agents: { agents: [{ agent_info: { id: { value: 'S1' }, hostname: 'h1',
      attributes: [{ name: 'rack', type: 'TEXT', text: { value: 'r1' } }] },
      pid: 'slave(1)@10.0.0.1:5051', active: true, registered_time: { nanoseconds: 1.5e18 },
      total_resources: scalars(4, 1024).concat([{ name: 'ports', type: 'RANGES',
        ranges: { range: [{ begin: 31000, end: 32000 }] } }]),
      allocated_resources: scalars(1, 100), offered_resources: scalars(3, 924) }] },
    get_frameworks: { frameworks: [{ framework_info: { id: { value: 'F1' }, name: 'fw', user: 'u' },
      active: true, allocated_resources: scalars(1, 100), offered_resources: scalars(3, 924) }] },
    get_tasks: { tasks: [taskOf('t1', 'TASK_RUNNING', 1, 100)],
      completed_tasks: [taskOf('t0', 'TASK_FINISHED', 1, 100)] } } } };
  const events = [subscribed,
    { type: 'TASK_ADDED', task_added: { task: taskOf('t2', 'TASK_STAGING', 0.5, 50) } },
    update('t2', 'TASK_RUNNING'),
    { type: 'HEARTBEAT' },
    update('t1', 'TASK_FINISHED'),
    { type: 'AGENT_ADDED', agent_added: { agent: { agent_info: { id: { value: 'S2' }, hostname: 'h2' },
      total_resources: scalars(2, 512) } } },
    { type: 'AGENT_REMOVED', agent_removed: { agent_id: { value: 'S2' } } },
  ];
  answer(200, events.map(record).join(''), 7);  // records split anywhere
  const previous = { hostname: 'm1', frameworks: [{ id: 'F1', pid: 'scheduler(1)@10.0.0.9:1' }] };
  let run = await follow(1 << 20, previous);
  const init = window.lastRequest.init;
  check('SUBSCRIBE is a JSON POST asking JSON', init.method === 'POST' &&
    JSON.parse(init.body).type === 'SUBSCRIBE' && init.headers.Accept === 'application/json' &&
    init.headers['Content-Type'] === 'application/json', init);
  check('the stream ends, to be asked again', run.reason === 'the master ended the stream' && !run.permanent, run.reason);
  const summary = run.subscribed;
  check('SUBSCRIBED gives a summary', summary && summary.slaves.length === 1 && summary.frameworks.length === 1, summary);
  const slave = summary.slaves[0], framework = summary.frameworks[0];
  check('the slave as /state-summary shows it', slave.id === 'S1' && slave.hostname === 'h1' &&
    slave.pid === 'slave(1)@10.0.0.1:5051' && slave.resources.cpus === 4 && slave.resources.ports === '[31000-32000]' &&
    slave.attributes.rack === 'r1' && slave.registered_time === 1.5e9, slave);
  check('the framework keeps the pid the last summary gave it', framework.pid === 'scheduler(1)@10.0.0.9:1' &&
    framework.name === 'fw' && summary.hostname === 'm1', framework);
  check('the counts follow the updates', framework.TASK_RUNNING === 1 && framework.TASK_FINISHED === 2 &&
    framework.TASK_STAGING === 0 && slave.TASK_RUNNING === 1 && slave.TASK_FINISHED === 2, framework);
  check('used: plus the launch, less the ended task', framework.used_resources.cpus === 0.5 &&
    framework.used_resources.mem === 50 && slave.used_resources.cpus === 0.5, slave.used_resources);
  check('offered: less the launch', framework.offered_resources.cpus === 2.5 &&
    slave.offered_resources.mem === 874, slave.offered_resources);
  check('a removed slave goes', summary.slaves.length === 1, summary.slaves.map((s) => s.id));
  check('five events changed something (not the heartbeat)', run.changed === 5, run.changed);
  const active = run.feed.activeTasks(50);
  check('the live tasks: the launched one', active.length === 1 && active[0].id === 't2' &&
    active[0].name === 'name-t2' && active[0].state === 'TASK_RUNNING' && run.feed.liveTaskCount() === 1, active);

  // A framework removed takes its counts and tasks with it.
  answer(200, [subscribed, { type: 'FRAMEWORK_REMOVED', framework_removed: {
    framework_info: { id: { value: 'F1' } } } }].map(record).join(''), 1 << 20);
  run = await follow(1 << 20, null);
  check('a removed framework goes', run.subscribed.frameworks.length === 0 && run.feed.liveTaskCount() === 0 &&
    run.subscribed.frameworks !== undefined && run.subscribed.slaves[0].TASK_RUNNING === 1, run.subscribed);

  // A SUBSCRIBED longer than the limit is not read: for good.
  answer(200, '99999999\n{"type":"SUBSCRIBED"', 1 << 20);
  run = await follow(1 << 20, null);
  check('a SUBSCRIBED too long ends it for good', run.permanent && run.subscribed === null &&
    /SUBSCRIBED is 95 MiB, more than this page reads \(1 MiB\)/.test(run.reason), run.reason);

  // Refusals.
  for (const [status, permanent] of [[401, true], [403, true], [404, true], [501, true], [500, false], [503, false]]) {
    answer(status, 'refused ' + status, 0);
    run = await follow(1 << 20, null);
    check('HTTP ' + status + (permanent ? ' is for good' : ' is asked again'),
      run.permanent === permanent && run.reason === 'SUBSCRIBE answered ' + status + ': refused ' + status, run);
  }

  // Not a stream of records.
  answer(200, 'hello\n', 1 << 20);
  run = await follow(1 << 20, null);
  check('a malformed record ends it, to be asked again', !run.permanent &&
    run.reason === 'a record header that is no length', run.reason);
  answer(200, record({ type: 'HEARTBEAT' }), 1 << 20);
  run = await follow(1 << 20, null);
  check('a stream must begin with SUBSCRIBED', !run.permanent &&
    run.reason === 'the stream began with HEARTBEAT, not SUBSCRIBED', run.reason);
  return failures;
})()
