// The master's web UI (docs/web-ui.md): one page, views chosen by the URL's
// hash (#/, #/frameworks, #/frameworks/<id>, #/slaves, #/slaves/<id>,
// #/roles, #/offers, #/sandbox?framework=&task=&path=&file=).
//
// What it asks, and how often:
// - One SUBSCRIBE to /api/v1 (events.js), when the browser reads streamed
//   answers: while that stream is open ("live") the slaves, frameworks,
//   counts and active tasks come from its events, rendered at most twice a
//   second, and /state-summary is not asked. Until it is open, after it
//   ends (asked again after 1 s, doubling up to 60 s), when the master
//   refuses it (401, 403, 404, ...: for good) or when /flags say that it
//   would prompt for credentials, the page polls as follows.
// - /state-summary (counts, no task) on a timer whose period grows with the
//   cluster: 2 s plus 1 s per 1,000 slaves, at least ten times what the
//   last poll cost (fetch, parse, render), at most 60 s; 60 s while the tab
//   is hidden; doubling after each failure. Every view reads this one copy;
//   the pages with data of their own (roles, offers, a sandbox) skip it once
//   they have one.
// - /metrics/snapshot with it (small): whether this master leads; a standby
//   then asks its own /state (which lists no slaves) for the leader.
// - /tasks one page (50 tasks) at a time (the overview: the newest 200, for
//   its active tasks), /roles, a slave's /state, and
//   /state (the offers page only) when their view is shown, at the same period.
// - A slave's /files/browse and /files/read straight from the slave (it
//   answers CORS); a followed file is read from where it was left.
// Tables show 50 rows a page: a cluster of 50,000 slaves renders 50.
'use strict';

(function () {
  const PAGE = 50;
  const HOUR_MS = 3600 * 1000;
  const MAX_INTERVAL_MS = 60000;
  const READ_LENGTH = 65536;          // what a slave's /files/read gives at most
  const MAX_FILE_TEXT = 1 << 20;      // characters of a file kept on the page
  const HISTORY_KEY = 'mesos-webui-history:' + location.host;
  const LIVE_STATES = ['TASK_STAGING', 'TASK_STARTING', 'TASK_RUNNING', 'TASK_KILLING'];
  // The overview's active tasks come from this many of the newest tasks.
  const ACTIVE_SCAN = 200;
  // A longer SUBSCRIBED (the whole cluster, tasks included: about 12,000
  // agents with two tasks each) is not read: the page polls instead.
  const MAX_SUBSCRIBED_BYTES = 32 << 20;
  const RENDER_MS = 500;  // live: at most one render this often

  const ui = {
    summary: null,        // the last /state-summary
    summaryAt: 0,         // when it came (ms since the epoch)
    leading: null,        // true, false (a standby), null (not known yet)
    leader: null,         // on a standby: {hostname, port, pid}
    interval: 2000,       // the current poll period
    failures: 0,          // polls failed in a row
    lastError: '',
    timer: null,
    polling: false,       // a poll is under way
    history: loadHistory(),
    view: null,           // the view shown: {update(), leave()}
    waiters: [],          // resolved with the first summary
    feed: {               // the event stream (events.js)
      handle: null,       // the open (or opening) stream
      live: false,        // SUBSCRIBED came: ui.summary is the stream's
      since: 0,           // when it came
      events: 0,          // events since
      reason: '',         // why the page polls
      refused: false,     // for good
      checked: false,     // /flags read (streamNeedsNewCredentials)
      backoff: 1000,      // the wait before asking again
      retry: null,
      render: null,       // the render timer
      renderCost: 0,
    },
  };

  // ---- small helpers ----------------------------------------------------

  const $ = (id) => document.getElementById(id);

  function esc(value) {
    return String(value === undefined || value === null ? '' : value)
      .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  }

  const enc = encodeURIComponent;

  async function getJSON(url) {
    const response = await fetch(url, { cache: 'no-store' });
    if (!response.ok) {
      const text = (await response.text()).trim();
      throw new Error(url.split('?')[0] + ' answered ' + response.status + (text ? ': ' + text : ''));
    }
    return response.json();
  }

  function num(x, digits) {
    if (x === undefined || x === null || isNaN(x)) return '0';
    const d = digits === undefined ? 2 : digits;
    return (Math.round(x * 10 ** d) / 10 ** d).toString();
  }

  function mem(mb) {
    if (!mb) return '0 B';
    if (mb >= 1024 * 1024) return num(mb / (1024 * 1024), 1) + ' TB';
    if (mb >= 1024) return num(mb / 1024, 1) + ' GB';
    return num(mb, 0) + ' MB';
  }

  function bytes(b) {
    if (b >= 1 << 30) return num(b / (1 << 30), 1) + ' GB';
    if (b >= 1 << 20) return num(b / (1 << 20), 1) + ' MB';
    if (b >= 1 << 10) return num(b / (1 << 10), 1) + ' KB';
    return b + ' B';
  }

  function when(seconds) {
    if (!seconds) return '';
    return new Date(seconds * 1000).toLocaleString();
  }

  function share(part, whole) { return whole > 0 ? part / whole : 0; }
  function percent(x) { return num(100 * x, 1) + '%'; }

  function bar(used, offered, total) {
    const u = Math.min(100, 100 * share(used, total));
    const o = Math.min(100 - u, 100 * share(offered || 0, total));
    return '<div class="bar" title="' + esc(percent(share(used, total))) + ' used">' +
      '<span style="width:' + u + '%;float:left"></span>' +
      '<span class="offered" style="width:' + o + '%;float:left"></span></div>';
  }

  function stateBadge(state) {
    return '<span class="state ' + esc(state) + '">' + esc(state) + '</span>';
  }

  function res(r) { return r || {}; }

  // "slave(1)@10.0.0.7:5051" -> {actor: "slave(1)", base: "http://10.0.0.7:5051"}
  function pidParts(pid) {
    const at = (pid || '').indexOf('@');
    if (at < 0) return null;
    return { actor: pid.slice(0, at), base: location.protocol + '//' + pid.slice(at + 1) };
  }

  function taskCounts(entry) {
    const counts = {};
    for (const key of Object.keys(entry)) {
      if (key.startsWith('TASK_')) counts[key] = entry[key];
    }
    return counts;
  }

  function liveTasks(entry) {
    return LIVE_STATES.reduce((sum, state) => sum + (entry[state] || 0), 0);
  }

  function allTasks(entry) {
    return Object.values(taskCounts(entry)).reduce((a, b) => a + b, 0);
  }

  function setView(html) { $('view').innerHTML = html; }

  function errorBox(message) {
    return '<div class="alert-box error">' + esc(message) + '</div>';
  }

  // A function that calls fn(): at once when fn last ran `ms` ago or more,
  // else once when that is so (calls in between are one). Its cancel()
  // drops a call that waits (the view is left).
  function throttled(fn, ms) {
    let last = 0;
    let timer = null;
    const call = () => {
      if (timer) return;
      const wait = last + ms - Date.now();
      const run = () => { timer = null; last = Date.now(); fn(); };
      if (wait <= 0) run();
      else timer = setTimeout(run, wait);
    };
    call.cancel = () => { clearTimeout(timer); timer = null; };
    return call;
  }

  // The hash: "#/a/b?x=1" -> {parts: ["a", "b"], params: URLSearchParams}
  function parseHash() {
    const hash = location.hash.replace(/^#\/?/, '');
    const q = hash.indexOf('?');
    const path = q < 0 ? hash : hash.slice(0, q);
    return {
      parts: path.split('/').filter((p) => p !== '').map(decodeURIComponent),
      params: new URLSearchParams(q < 0 ? '' : hash.slice(q + 1)),
    };
  }

  // The first summary, when the view needs one before the first poll ends.
  function summaryReady() {
    if (ui.summary) return Promise.resolve(ui.summary);
    return new Promise((resolve) => ui.waiters.push(resolve));
  }

  function slaveById(id) {
    return ui.summary ? ui.summary.slaves.find((s) => s.id === id) : undefined;
  }

  function frameworkById(id) {
    return ui.summary ? ui.summary.frameworks.find((f) => f.id === id) : undefined;
  }

  function totals(summary) {
    const t = { total: {}, used: {}, offered: {}, active: 0 };
    for (const s of summary.slaves) {
      if (s.active !== false) t.active++;
      for (const name of ['cpus', 'mem', 'disk', 'gpus']) {
        t.total[name] = (t.total[name] || 0) + (res(s.resources)[name] || 0);
        t.used[name] = (t.used[name] || 0) + (res(s.used_resources)[name] || 0);
        t.offered[name] = (t.offered[name] || 0) + (res(s.offered_resources)[name] || 0);
      }
    }
    return t;
  }

  // A framework's dominant share of the cluster (cpus and mem), used and
  // offered, as the allocator's DRF counts it.
  function dominantShare(f, total) {
    const used = res(f.used_resources);
    const offered = res(f.offered_resources);
    let best = 0;
    for (const name of ['cpus', 'mem', 'disk', 'gpus']) {
      best = Math.max(best, share((used[name] || 0) + (offered[name] || 0), total[name] || 0));
    }
    return best;
  }

  // ---- paging -----------------------------------------------------------

  // Renders items[page*50 ... +50) with `row` into `el` as a table with the
  // header `head`, and a pager that calls `onPage(newPage)`.
  function pagedTable(el, items, page, head, row, onPage) {
    const pages = Math.max(1, Math.ceil(items.length / PAGE));
    const p = Math.min(page, pages - 1);
    const rows = items.slice(p * PAGE, (p + 1) * PAGE).map(row).join('');
    el.innerHTML = pager(p, pages, items.length) +
      '<table class="data table table-sm"><thead><tr>' + head + '</tr></thead><tbody>' +
      (rows || '<tr><td colspan="20" class="muted">none</td></tr>') + '</tbody></table>';
    bindPager(el, p, pages, onPage);
    return p;
  }

  function pager(page, pages, count) {
    if (pages <= 1) return '<div class="pager muted">' + count + ' in all</div>';
    return '<div class="pager"><button data-page="prev"' + (page === 0 ? ' disabled' : '') +
      '>&laquo; previous</button><span>page ' + (page + 1) + ' of ' + pages + ' (' + count +
      ' in all)</span><button data-page="next"' + (page + 1 >= pages ? ' disabled' : '') +
      '>next &raquo;</button></div>';
  }

  function bindPager(el, page, pages, onPage) {
    for (const button of el.querySelectorAll('button[data-page]')) {
      button.onclick = () => {
        const next = button.dataset.page === 'next' ? page + 1 : page - 1;
        if (next >= 0 && next < pages) onPage(next);
      };
    }
  }

  function filterBox(id, placeholder) {
    return '<input type="search" id="' + id + '" class="form-control form-control-sm" ' +
      'style="width:auto" placeholder="' + esc(placeholder) + '">';
  }

  function matches(filter, values) {
    if (!filter) return true;
    const f = filter.toLowerCase();
    return values.some((v) => String(v || '').toLowerCase().includes(f));
  }

  // ---- polling ----------------------------------------------------------

  function nextInterval(slaveCount, costMs) {
    let ms = Math.max(2000 + slaveCount, 10 * costMs);
    if (ui.failures > 0) ms = Math.max(ms, 2000 * 2 ** Math.min(ui.failures, 5));
    if (document.hidden) ms = Math.max(ms, MAX_INTERVAL_MS);
    return Math.min(ms, MAX_INTERVAL_MS);
  }

  async function poll() {
    if (ui.polling) return;  // one poll at a time; the one under way re-arms the timer
    ui.polling = true;
    clearTimeout(ui.timer);
    const started = performance.now();
    try {
      const metrics = await getJSON('metrics/snapshot');
      ui.leading = metrics['master/elected'] !== 0;
      if (!ui.leading) {
        const state = await getJSON('state');
        const info = state.leader_info;
        ui.leader = info ? { hostname: info.hostname, port: info.port, pid: state.leader }
          : (state.leader ? { pid: state.leader } : null);
      } else if (ui.feed.live) {
        // The stream keeps the summary: one sample for the chart.
        ui.leader = null;
        record(ui.summary);
        ui.summaryAt = Date.now();
      } else if (ui.summary && ui.view && ui.view.ownData) {
        // A page that asks for its own data (roles, offers, a sandbox):
        // the summary it was given stays, the master is spared one.
        ui.leader = null;
      } else {
        ui.leader = null;
        const summary = await getJSON('state-summary');
        if (!ui.feed.live) {  // else the stream opened meanwhile: its summary is newer
          ui.summary = summary;
          ui.summaryAt = Date.now();
          record(summary);
          for (const resolve of ui.waiters.splice(0)) resolve(summary);
        }
      }
      ui.failures = 0;
      ui.lastError = '';
      renderBanner();
      // Live, a page of the summary hears of each change as it comes
      // (renderLive): here it only redraws (the chart's sample).
      if (ui.view && ui.view.update) ui.view.update(ui.feed.live && !ui.view.ownData ? noChanges() : undefined);
    } catch (error) {
      ui.failures++;
      ui.lastError = error.message;
      renderBanner();
    }
    const cost = performance.now() - started;
    ui.interval = nextInterval(ui.summary ? ui.summary.slaves.length : 0, cost);
    renderStatus();
    ui.polling = false;
    ui.timer = setTimeout(poll, ui.interval);
  }

  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && Date.now() - ui.summaryAt > 5000) poll();
  });

  function renderStatus() {
    let text;
    if (ui.failures > 0) text = 'master not answering; retrying in ' + num(ui.interval / 1000, 0) + ' s';
    else if (ui.leading === false) text = 'standby master';
    else if (ui.feed.live) {
      text = (ui.summary.hostname || location.host) + ' \u00b7 live since ' +
        new Date(ui.feed.since).toLocaleTimeString() + ' \u00b7 ' + ui.feed.events + ' events';
    } else if (ui.summary) {
      text = (ui.summary.hostname || location.host) + ' \u00b7 updated ' +
        new Date(ui.summaryAt).toLocaleTimeString() + ' \u00b7 every ' +
        num(ui.interval / 1000, 0) + ' s';
    } else text = 'connecting\u2026';
    $('status').textContent = text;
    const feed = $('feed');
    if (feed) {
      feed.textContent = ui.feed.live ? 'live' : 'polling';
      feed.className = 'badge ' + (ui.feed.live ? 'text-bg-success' : 'text-bg-secondary');
      feed.title = ui.feed.live ? 'following the master\'s event stream (/api/v1 SUBSCRIBE)'
        : 'polling /state-summary' + (ui.feed.reason ? ': ' + ui.feed.reason : '');
    }
  }

  // ---- the event stream (events.js) ---------------------------------------

  function noChanges() { return { frameworks: new Set(), slaves: new Set() }; }

  // Whether the master asks of /api/v1 credentials that it asks of none of
  // the endpoints the page polls: the browser would then prompt for them
  // at once (once asked for the read-only ones, it sends them to /api/v1
  // as well). Unknown (no /flags) counts as no.
  async function streamNeedsNewCredentials() {
    try {
      const flags = (await getJSON('flags')).flags || {};
      return flags.authenticate_http_readwrite === 'true' && flags.authenticate_http_readonly !== 'true';
    } catch (error) {
      return false;
    }
  }

  async function startFeed() {
    ui.feed.retry = null;
    if (!window.MesosEvents || !window.MesosEvents.supported()) {
      ui.feed.refused = true;
      ui.feed.reason = 'this browser cannot read a streamed answer';
      renderStatus();
      return;
    }
    if (!ui.feed.checked) {
      ui.feed.checked = true;
      if (await streamNeedsNewCredentials()) {
        ui.feed.refused = true;
        ui.feed.reason = 'the master asks credentials of /api/v1 (--authenticate_http_readwrite) that this page was not asked for';
        renderStatus();
        return;
      }
    }
    ui.feed.handle = window.MesosEvents.follow('api/v1', {
      maxSubscribedBytes: MAX_SUBSCRIBED_BYTES,
      previous: ui.summary,
      subscribed(summary) {
        ui.feed.live = true;
        ui.feed.since = Date.now();
        ui.feed.events = 0;
        ui.feed.reason = '';
        ui.summary = summary;
        ui.summaryAt = Date.now();
        record(summary);
        for (const resolve of ui.waiters.splice(0)) resolve(summary);
        if (ui.view && ui.view.update) ui.view.update();
        renderStatus();
      },
      changed() {
        ui.feed.events++;
        scheduleRender();
      },
      ended: feedEnded,
    });
  }

  function feedEnded(reason, permanent) {
    const wasLive = ui.feed.live;
    ui.feed.handle = null;
    ui.feed.live = false;
    ui.feed.reason = reason;
    clearTimeout(ui.feed.render);
    ui.feed.render = null;
    if (permanent) {
      ui.feed.refused = true;
    } else {
      // A stream that held a minute is asked again at once; one that
      // keeps failing, ever less often.
      if (wasLive && Date.now() - ui.feed.since >= 60000) ui.feed.backoff = 1000;
      ui.feed.retry = setTimeout(startFeed, ui.feed.backoff);
      ui.feed.backoff = Math.min(MAX_INTERVAL_MS, ui.feed.backoff * 2);
    }
    if (wasLive) poll();  // the summary again now: the page does not go stale
    renderStatus();
  }

  function scheduleRender() {
    if (ui.feed.render) return;
    const wait = Math.max(RENDER_MS, 10 * ui.feed.renderCost, document.hidden ? 5000 : 0);
    ui.feed.render = setTimeout(renderLive, wait);
  }

  function renderLive() {
    ui.feed.render = null;
    if (!ui.feed.live || !ui.feed.handle) return;
    const started = performance.now();
    const changes = ui.feed.handle.takeChanges();
    ui.summaryAt = Date.now();
    if (ui.view && ui.view.update && !ui.view.ownData) ui.view.update(changes);
    renderStatus();
    ui.feed.renderCost = performance.now() - started;
  }

  function renderBanner() {
    let html = '';
    if (ui.leading === false) {
      if (ui.leader && ui.leader.pid) {
        const parts = pidParts(ui.leader.pid);
        const hostPort = ui.leader.hostname ? ui.leader.hostname + ':' + ui.leader.port
          : (parts ? parts.base.replace(/^[a-z]+:\/\//, '') : ui.leader.pid);
        const href = location.protocol + '//' + hostPort + '/' + location.hash;
        const byAddress = parts ? parts.base + '/' + location.hash : '';
        html = '<div class="alert-box warn" id="standby">This master (' + esc(location.host) +
          ') is a standby. The leading master is <a id="leader-link" href="' + esc(href) + '">' +
          esc(hostPort) + '</a>' + (byAddress && byAddress !== href ? ' (<a href="' + esc(byAddress) + '">' +
          esc(ui.leader.pid) + '</a>)' : '') + ': its UI shows the cluster.</div>';
      } else {
        html = '<div class="alert-box warn" id="standby">This master (' + esc(location.host) +
          ') is a standby, and no leading master is elected yet.</div>';
      }
    } else if (ui.failures > 0) {
      html = errorBox('Cannot reach the master: ' + ui.lastError +
        (ui.summary ? ' (showing what it said at ' + new Date(ui.summaryAt).toLocaleTimeString() + ')' : ''));
    }
    if ($('banner').innerHTML !== html) $('banner').innerHTML = html;
    // A standby knows no slaves nor frameworks: only the banner is shown.
    $('view').style.display = ui.leading === false ? 'none' : '';
  }

  // ---- the allocation history (the overview's chart) ----------------------

  function loadHistory() {
    try {
      const kept = JSON.parse(localStorage.getItem(HISTORY_KEY) || '[]');
      return Array.isArray(kept) ? kept.filter((s) => s.t > Date.now() - HOUR_MS) : [];
    } catch (e) {
      return [];
    }
  }

  // One sample per poll, at most one every 5 s kept; the last hour, saved in
  // the browser so that a reload keeps it.
  function record(summary) {
    const t = totals(summary);
    const now = Date.now();
    const previous = ui.history[ui.history.length - 2];
    const sample = {
      t: now,
      cpu: 100 * share(t.used.cpus || 0, t.total.cpus || 0),
      mem: 100 * share(t.used.mem || 0, t.total.mem || 0),
      cpuOffered: 100 * share(t.offered.cpus || 0, t.total.cpus || 0),
      memOffered: 100 * share(t.offered.mem || 0, t.total.mem || 0),
    };
    // The last sample stands for now: replaced until 5 s past the one before.
    if (previous && now - previous.t < 5000) ui.history[ui.history.length - 1] = sample;
    else ui.history.push(sample);
    while (ui.history.length && ui.history[0].t < now - HOUR_MS) ui.history.shift();
    try {
      localStorage.setItem(HISTORY_KEY, JSON.stringify(ui.history));
    } catch (e) { /* private mode or full: the chart still has this page's samples */ }
  }

  // ---- views --------------------------------------------------------------

  const views = {};

  views.overview = function () {
    setView('<h1>Cluster</h1><div id="cards" class="cards"></div>' +
      '<div class="grid2"><div class="panel"><h2 style="margin-top:0">Allocation, last hour</h2>' +
      '<div class="chart-box"><canvas id="chart"></canvas></div><div id="chart-note" class="muted small"></div>' +
      '</div><div class="panel"><h2 style="margin-top:0">Resources</h2><div id="resources"></div>' +
      '<h2>Tasks by state</h2><div id="states"></div></div></div>' +
      '<div class="panel"><h2 style="margin-top:0">Active tasks</h2>' +
      '<div id="active-tasks"><p class="muted">Loading&hellip;</p></div></div>');
    let chart = null;
    // The newest live tasks: one page of /tasks (newest first) at most
    // every poll period, its live ones shown; live, the stream's own live
    // tasks, newest first.
    let activeSeq = 0;
    let activeAt = 0;
    function renderActive(live, note) {
      const rows = live.map((t) => {
        const f = frameworkById(t.framework_id);
        const s = slaveById(t.slave_id);
        return '<tr><td>' + esc(t.name || t.id) + '</td><td><a href="#/frameworks/' +
          enc(t.framework_id) + '">' + esc(f ? f.name : t.framework_id) + '</a></td><td>' +
          stateBadge(t.state) + '</td><td><a href="#/slaves/' + enc(t.slave_id) + '">' +
          esc(s ? s.hostname : t.slave_id) + '</a></td></tr>';
      }).join('');
      $('active-tasks').innerHTML = '<table class="data table table-sm"><thead><tr><th>Task</th>' +
        '<th>Framework</th><th>State</th><th>Host</th></tr></thead><tbody>' +
        (rows || '<tr><td colspan="4" class="muted">no active tasks</td></tr>') + '</tbody></table>' +
        '<div class="muted small">' + note + '; each framework\'s page lists them all.</div>';
    }
    async function loadActive() {
      const mine = ++activeSeq;
      activeAt = Date.now();
      try {
        const answer = await getJSON('tasks?limit=' + ACTIVE_SCAN + '&order=desc');
        if (mine !== activeSeq || !$('active-tasks') || ui.feed.live) return;
        renderActive(answer.tasks.filter((t) => LIVE_STATES.includes(t.state)).slice(0, PAGE),
          'The newest ' + PAGE + ' live tasks among the master\'s newest ' + ACTIVE_SCAN + ' (/tasks)');
      } catch (error) {
        if (mine === activeSeq && $('active-tasks')) $('active-tasks').innerHTML = errorBox(error.message);
      }
    }
    if (window.Chart) {
      chart = new window.Chart($('chart'), {
        type: 'line',
        data: { labels: [], datasets: [
          { label: 'CPU used %', data: [], borderColor: '#0d6efd', backgroundColor: '#0d6efd', pointRadius: 0, borderWidth: 2 },
          { label: 'Memory used %', data: [], borderColor: '#198754', backgroundColor: '#198754', pointRadius: 0, borderWidth: 2 },
          { label: 'CPU offered %', data: [], borderColor: '#ffc107', backgroundColor: '#ffc107', pointRadius: 0, borderWidth: 1, borderDash: [4, 3] },
          { label: 'Memory offered %', data: [], borderColor: '#fd7e14', backgroundColor: '#fd7e14', pointRadius: 0, borderWidth: 1, borderDash: [4, 3] },
        ] },
        options: {
          animation: false, maintainAspectRatio: false,
          scales: { y: { min: 0, max: 100, ticks: { callback: (v) => v + '%' } },
                    x: { ticks: { maxTicksLimit: 6, autoSkip: true, maxRotation: 0 } } },
          plugins: { legend: { labels: { boxWidth: 12 } } },
        },
      });
    } else {
      $('chart').parentNode.remove();
      $('chart-note').textContent = 'No chart: Chart.js (libjs-chart.js) was not installed when the master was built.';
    }

    function update() {
      const s = ui.summary;
      if (!s) return;
      if (ui.feed.live && ui.feed.handle) {
        activeSeq++;
        renderActive(ui.feed.handle.activeTasks(PAGE), 'The newest ' + PAGE + ' of the ' +
          ui.feed.handle.liveTaskCount() + ' live tasks, as the master\'s event stream tells them');
      } else if (Date.now() - activeAt >= 10000) loadActive();
      const t = totals(s);
      const running = s.frameworks.reduce((sum, f) => sum + (f.TASK_RUNNING || 0), 0);
      const live = s.frameworks.reduce((sum, f) => sum + liveTasks(f), 0);
      $('cards').innerHTML = [
        ['Slaves', t.active + (s.slaves.length > t.active ? ' / ' + s.slaves.length : ''), '#/slaves'],
        ['Frameworks', s.frameworks.length, '#/frameworks'],
        ['Running tasks', running, '#/frameworks'],
        ['Live tasks', live, '#/frameworks'],
        ['CPUs used', num(t.used.cpus) + ' / ' + num(t.total.cpus), '#/slaves'],
        ['Memory used', mem(t.used.mem) + ' / ' + mem(t.total.mem), '#/slaves'],
      ].map(([label, value, href]) => '<a class="card-box" href="' + href + '" style="color:inherit">' +
        '<div class="label">' + esc(label) + '</div><div class="value">' + esc(value) + '</div></a>').join('');

      $('resources').innerHTML = '<table class="data table table-sm"><thead><tr><th></th>' +
        '<th class="num">total</th><th class="num">used</th><th class="num">offered</th>' +
        '<th class="num">idle</th><th></th></tr></thead><tbody>' +
        ['cpus', 'mem', 'disk', 'gpus'].map((name) => {
          const f = name === 'mem' || name === 'disk' ? mem : (x) => num(x);
          const total = t.total[name] || 0, used = t.used[name] || 0, offered = t.offered[name] || 0;
          return '<tr><th>' + name + '</th><td class="num">' + f(total) + '</td><td class="num">' + f(used) +
            '</td><td class="num">' + f(offered) + '</td><td class="num">' +
            f(Math.max(0, total - used - offered)) + '</td><td style="width:30%">' +
            bar(used, offered, total) + '</td></tr>';
        }).join('') + '</tbody></table>';

      const counts = {};
      for (const f of s.frameworks) {
        for (const [state, n] of Object.entries(taskCounts(f))) counts[state] = (counts[state] || 0) + n;
      }
      const rows = Object.entries(counts).filter(([, n]) => n > 0)
        .map(([state, n]) => '<tr><td>' + stateBadge(state) + '</td><td class="num">' + n + '</td></tr>').join('');
      $('states').innerHTML = '<table class="data table table-sm"><tbody>' +
        (rows || '<tr><td class="muted">no tasks</td></tr>') + '</tbody></table>';

      if (chart) {
        chart.data.labels = ui.history.map((p) => new Date(p.t).toLocaleTimeString());
        chart.data.datasets[0].data = ui.history.map((p) => p.cpu);
        chart.data.datasets[1].data = ui.history.map((p) => p.mem);
        chart.data.datasets[2].data = ui.history.map((p) => p.cpuOffered);
        chart.data.datasets[3].data = ui.history.map((p) => p.memOffered);
        chart.update('none');
        $('chart-note').textContent = ui.history.length < 2
          ? 'Kept by this page from the master\'s /state-summary: it fills as the page stays open.' : '';
      }
    }
    update();
    return { update, leave() { if (chart) chart.destroy(); } };
  };

  // /roles, asked at most every 30 s (the frameworks page shows roles).
  const roles = { data: null, at: 0, pending: null };
  function fetchRoles(maxAgeMs) {
    if (roles.data && Date.now() - roles.at < maxAgeMs) return Promise.resolve(roles.data);
    if (!roles.pending) {
      roles.pending = getJSON('roles').then((data) => {
        roles.data = data;
        roles.at = Date.now();
        return data;
      }).finally(() => { roles.pending = null; });
    }
    return roles.pending;
  }

  function roleOf(frameworkId) {
    if (!roles.data) return '';
    const role = roles.data.roles.find((r) => (r.frameworks || []).includes(frameworkId));
    return role ? role.name : '';
  }

  views.frameworks = function () {
    setView('<h1>Frameworks</h1><div class="toolbar">' + filterBox('filter', 'filter by id, name, role, host') +
      '</div><div id="table"></div>');
    let page = 0;
    $('filter').oninput = () => { page = 0; update(); };
    function update() {
      if (!ui.summary) return;
      const total = totals(ui.summary).total;
      const filter = $('filter').value;
      const items = ui.summary.frameworks.filter((f) =>
        matches(filter, [f.id, f.name, f.hostname, roleOf(f.id)]));
      page = pagedTable($('table'), items, page,
        '<th>ID</th><th>Name</th><th>Role</th><th>Host</th><th class="num">Share</th>' +
        '<th class="num">CPUs</th><th class="num">Memory</th><th class="num">Offered</th>' +
        '<th class="num">Live tasks</th><th class="num">All tasks</th>',
        (f) => {
          const used = res(f.used_resources), offered = res(f.offered_resources);
          return '<tr><td class="mono"><a href="#/frameworks/' + enc(f.id) + '">' + esc(f.id) + '</a></td>' +
            '<td>' + esc(f.name) + (f.active === false ? ' <span class="muted">(inactive)</span>' : '') +
            '</td><td>' + esc(roleOf(f.id)) + '</td><td>' + esc(f.hostname) + '</td>' +
            '<td class="num">' + percent(dominantShare(f, total)) + '</td>' +
            '<td class="num">' + num(used.cpus) + '</td><td class="num">' + mem(used.mem) + '</td>' +
            '<td class="num">' + num(offered.cpus) + ' cpus, ' + mem(offered.mem) + '</td>' +
            '<td class="num">' + liveTasks(f) + '</td><td class="num">' + allTasks(f) + '</td></tr>';
        }, (p) => { page = p; update(); });
    }
    update();
    fetchRoles(0).then(update, () => {});
    return { update() { fetchRoles(30000).then(update, update); } };
  };

  views.framework = function (id) {
    setView('<div class="crumbs"><a href="#/frameworks">Frameworks</a> / <span class="mono">' + esc(id) +
      '</span></div><h1 id="title">Framework</h1><div id="about"></div><h2>Tasks</h2>' +
      '<div class="toolbar muted">newest first, ' + PAGE + ' a page, from the master\'s /tasks</div>' +
      '<div id="tasks"><p class="muted">Loading&hellip;</p></div>');
    let page = 0;
    let seq = 0;
    async function loadTasks() {
      const mine = ++seq;
      try {
        const answer = await getJSON('tasks?framework_id=' + enc(id) + '&limit=' + PAGE +
          '&offset=' + page * PAGE + '&order=desc');
        if (mine !== seq || !$('tasks')) return;
        const f = frameworkById(id);
        const count = f ? allTasks(f) : answer.tasks.length;
        const pages = Math.max(page + (answer.tasks.length === PAGE ? 2 : 1), Math.ceil(count / PAGE));
        const slaveName = (sid) => { const s = slaveById(sid); return s ? s.hostname : sid; };
        const rows = answer.tasks.map((t) => {
          const r = res(t.resources);
          const started = t.statuses && t.statuses.length ? t.statuses[0].timestamp : 0;
          return '<tr><td class="mono">' + esc(t.id) + '</td><td>' + esc(t.name) + '</td><td>' +
              stateBadge(t.state) + '</td><td><a href="#/slaves/' + enc(t.slave_id) + '">' +
              esc(slaveName(t.slave_id)) + '</a></td><td class="mono">' +
              esc(addresses(t).join(' ')) + '</td><td class="mono">' + esc(image(t)) +
              '</td><td class="num">' + num(r.cpus) + '</td><td class="num">' + mem(r.mem) +
              '</td><td>' + esc(when(started)) +
              '</td><td><a href="#/sandbox?framework=' + enc(id) + '&task=' + enc(t.id) +
              '">sandbox</a></td></tr>';
        }).join('');
        $('tasks').innerHTML = pager(page, pages, count) +
            '<table class="data table table-sm"><thead><tr>' +
            '<th>ID</th><th>Name</th><th>State</th><th>Slave</th><th>Addresses</th><th>Image</th>' +
            '<th class="num">CPUs</th><th class="num">Memory</th><th>Started</th><th></th></tr></thead>' +
            '<tbody>' + (rows || '<tr><td colspan="10" class="muted">no tasks</td></tr>') +
            '</tbody></table>';
        bindPager($('tasks'), page, pages, (p) => { page = p; loadTasks(); });
      } catch (error) {
        if (mine === seq && $('tasks')) $('tasks').innerHTML = errorBox(error.message);
      }
    }
    function update() {
      const f = frameworkById(id);
      if (!ui.summary) return;
      if (!f) {
        $('about').innerHTML = '<p class="muted">The master has no registered framework ' + esc(id) +
          ' (it may have ended): its tasks below are those the master still keeps.</p>';
      } else {
        const used = res(f.used_resources), offered = res(f.offered_resources);
        $('title').textContent = f.name || id;
        $('about').innerHTML = '<div class="panel"><dl class="kv">' +
          '<dt>ID</dt><dd class="mono">' + esc(f.id) + '</dd><dt>Name</dt><dd>' + esc(f.name) + '</dd>' +
          '<dt>Role</dt><dd>' + esc(roleOf(f.id)) + '</dd><dt>Host</dt><dd>' + esc(f.hostname) + '</dd>' +
          '<dt>Pid</dt><dd class="mono">' + (f.pid ? esc(f.pid) : f.pid === null
            ? '<span class="muted">not in the event stream</span>' : 'none: subscribed over HTTP') + '</dd>' +
          '<dt>Share</dt><dd>' + percent(dominantShare(f, totals(ui.summary).total)) + '</dd>' +
          '<dt>Used</dt><dd>' + num(used.cpus) + ' cpus, ' + mem(used.mem) + '</dd>' +
          '<dt>Offered</dt><dd>' + num(offered.cpus) + ' cpus, ' + mem(offered.mem) + '</dd>' +
          '<dt>Tasks</dt><dd>' + Object.entries(taskCounts(f)).filter(([, n]) => n > 0)
            .map(([s, n]) => stateBadge(s) + ' ' + n).join(' &nbsp; ') + '</dd>' +
          (f.webui_url ? '<dt>Web UI</dt><dd><a href="' + esc(f.webui_url) + '">' + esc(f.webui_url) + '</a></dd>' : '') +
          '</dl></div>';
      }
    }
    update();
    fetchRoles(30000).then(update, () => {});
    loadTasks();
    // Live: its tasks asked again when the stream tells of a change to
    // this framework, at most every 2 s.
    const reload = throttled(loadTasks, 2000);
    return {
      update(changes) { update(); if (!changes || changes.frameworks.has(id)) reload(); },
      leave: reload.cancel,
    };
  };

  // A task's addresses on its container's networks (CNI), from its latest
  // status that reports them (container_status.network_infos).
  function addresses(t) {
    const statuses = t.statuses || [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const infos = ((statuses[i].container_status || {}).network_infos) || [];
      const found = [];
      for (const n of infos) {
        for (const a of n.ip_addresses || []) {
          if (a.ip_address) found.push(a.ip_address + (n.name ? ' (' + n.name + ')' : ''));
        }
      }
      if (found.length) return found;
    }
    return [];
  }

  // The image a task runs from: a Docker image of the Mesos containerizer
  // (container.mesos.image) or of the Docker containerizer (container.docker).
  function image(t) {
    const c = t.container || {};
    const mesosImage = (c.mesos || {}).image || {};
    if (mesosImage.docker && mesosImage.docker.name) return mesosImage.docker.name;
    if (mesosImage.appc && mesosImage.appc.name) return mesosImage.appc.name;
    if (c.docker && c.docker.image) return c.docker.image + ' (docker)';
    return '';
  }

  function attributes(a) {
    if (!a) return '';
    return Object.entries(a).map(([k, v]) => esc(k) + ':' + esc(typeof v === 'object' ? JSON.stringify(v) : v)).join(', ');
  }

  // Maintenance (docs/maintenance.md): a machine is its hostname (any case)
  // and IP; a slave is on the machine of its hostname and its pid's IP.
  function machineKey(m) { return (m.hostname || '').toLowerCase() + '\n' + (m.ip || ''); }
  function slaveMachineKey(s) {
    const at = (s.pid || '').indexOf('@');
    return machineKey({ hostname: s.hostname, ip: at < 0 ? '' : s.pid.slice(at + 1).split(':')[0] });
  }

  // The schedule and each machine's mode, from /maintenance/schedule and
  // /maintenance/status: {windows, byMachine: key -> {mode, window}}.
  async function maintenanceState() {
    const [schedule, status] = await Promise.all(
      [getJSON('maintenance/schedule'), getJSON('maintenance/status')]);
    const byMachine = {};
    for (const w of schedule.windows || []) {
      for (const m of w.machine_ids || []) byMachine[machineKey(m)] = { mode: 'DRAINING', window: w.unavailability };
    }
    for (const d of status.draining_machines || []) {
      const entry = byMachine[machineKey(d.id)] || (byMachine[machineKey(d.id)] = {});
      entry.mode = 'DRAINING';
      entry.statuses = d.statuses || [];
    }
    for (const m of status.down_machines || []) {
      (byMachine[machineKey(m)] || (byMachine[machineKey(m)] = {})).mode = 'DOWN';
    }
    return { windows: schedule.windows || [], byMachine };
  }

  function windowText(u) {
    if (!u || !u.start) return '';
    const start = u.start.nanoseconds / 1e9;
    const end = u.duration ? start + u.duration.nanoseconds / 1e9 : null;
    return when(start) + (end ? ' \u2013 ' + when(end) : ' (open-ended)');
  }

  function renderMaintenance(el, m) {
    if (!m || m.windows.length === 0) { el.innerHTML = ''; return; }
    el.innerHTML = '<h2>Maintenance schedule</h2><table class="data table table-sm"><thead><tr>' +
      '<th>Window</th><th>Machines (mode)</th></tr></thead><tbody>' +
      m.windows.map((w) => '<tr><td>' + esc(windowText(w.unavailability)) + '</td><td>' +
        (w.machine_ids || []).map((id) => {
          const entry = m.byMachine[machineKey(id)] || {};
          return esc((id.hostname || '') + (id.ip ? ' ' + id.ip : '')) + ' (' + esc(entry.mode || 'UP') + ')';
        }).join(', ') + '</td></tr>').join('') + '</tbody></table>';
  }

  // An agent's operator state (docs/draining.md) or its lost connection.
  function slaveMode(s) {
    if (s.drain_info) {
      const grace = s.drain_info.config && s.drain_info.config.max_grace_period;
      const title = 'drained by an operator' + (grace ? ', max grace ' +
        num(grace.nanoseconds / 1e9) + ' s' : '') +
        (s.drain_info.config && s.drain_info.config.mark_gone ? ', then marked gone' : '');
      return ' <span class="badge text-bg-warning" title="' + esc(title) + '">' + esc(s.drain_info.state) + '</span>';
    }
    if (s.deactivated) return ' <span class="badge text-bg-secondary" title="offered nothing by an operator\'s DEACTIVATE_AGENT">deactivated</span>';
    return s.active === false ? ' <span class="muted">(inactive)</span>' : '';
  }

  views.slaves = function () {
    setView('<h1>Slaves</h1><div id="maintenance"></div><div class="toolbar">' +
      filterBox('filter', 'filter by id, host, attribute, mode') + '</div><div id="table"></div>');
    let page = 0;
    let maintenance = null;
    let maintenanceAt = 0;
    $('filter').oninput = () => { page = 0; update(); };
    function refreshMaintenance() {
      if (Date.now() - maintenanceAt < 10000) return;
      maintenanceAt = Date.now();
      maintenanceState().then((m) => {
        maintenance = m;
        if ($('maintenance')) { renderMaintenance($('maintenance'), m); update(); }
      }).catch(() => { maintenance = null; });
    }
    function modeOf(s) {
      const entry = maintenance ? maintenance.byMachine[slaveMachineKey(s)] : null;
      return entry ? entry : { mode: 'UP' };
    }
    function update() {
      if (!ui.summary) return;
      refreshMaintenance();
      const filter = $('filter').value;
      const items = ui.summary.slaves.filter((s) =>
        matches(filter, [s.id, s.hostname, s.pid, attributes(s.attributes), modeOf(s).mode]));
      page = pagedTable($('table'), items, page,
        '<th>ID</th><th>Host</th><th class="num">CPUs</th><th></th><th class="num">Memory</th><th></th>' +
        '<th class="num">Disk</th><th>Attributes</th><th class="num">Live tasks</th><th>Registered</th>' +
        '<th>Maintenance</th>',
        (s) => {
          const r = res(s.resources), u = res(s.used_resources), o = res(s.offered_resources);
          return '<tr><td class="mono"><a href="#/slaves/' + enc(s.id) + '">' + esc(s.id) + '</a></td>' +
            '<td>' + esc(s.hostname) + slaveMode(s) +
            '</td><td class="num">' + num(u.cpus) + ' / ' + num(r.cpus) + '</td><td>' + bar(u.cpus, o.cpus, r.cpus) +
            '</td><td class="num">' + mem(u.mem) + ' / ' + mem(r.mem) + '</td><td>' + bar(u.mem, o.mem, r.mem) +
            '</td><td class="num">' + mem(r.disk) + '</td><td>' + attributes(s.attributes) + '</td>' +
            '<td class="num">' + liveTasks(s) + '</td><td>' + esc(when(s.registered_time)) + '</td>' +
            '<td class="maintenance">' + esc(modeOf(s).mode) +
            (modeOf(s).window ? ' <span class="muted">' + esc(windowText(modeOf(s).window)) + '</span>' : '') +
            '</td></tr>';
        }, (p) => { page = p; update(); });
    }
    update();
    return { update };
  };

  // Asks a slave for its /state (it answers CORS).
  function slaveState(slave) {
    const p = pidParts(slave.pid);
    if (!p) return Promise.reject(new Error('slave ' + slave.id + ' has no pid'));
    return getJSON(p.base + '/' + p.actor + '/state').catch((error) => {
      throw new Error('cannot read ' + p.base + '/' + p.actor + '/state (' + error.message + ')');
    });
  }

  views.slave = function (id) {
    setView('<div class="crumbs"><a href="#/slaves">Slaves</a> / <span class="mono">' + esc(id) +
      '</span></div><h1 id="title">Slave</h1><div id="about"></div><h2>Executors</h2>' +
      '<div id="executors"><p class="muted">Asking the slave&hellip;</p></div>');
    let page = 0;
    let state = null;
    function render() {
      if (!state || !$('executors')) return;
      const items = [];
      for (const f of state.frameworks || []) {
        for (const e of f.executors || []) items.push({ f, e, done: false });
      }
      for (const f of state.frameworks || []) {
        for (const e of f.completed_executors || []) items.push({ f, e, done: true });
      }
      for (const f of state.completed_frameworks || []) {
        for (const e of (f.executors || []).concat(f.completed_executors || [])) items.push({ f, e, done: true });
      }
      page = pagedTable($('executors'), items, page,
        '<th>Framework</th><th>Executor</th><th>Name</th><th>Tasks</th><th class="num">CPUs</th>' +
        '<th class="num">Memory</th><th></th>',
        ({ f, e, done }) => {
          const tasks = (e.tasks || []).concat(e.queued_tasks || [], e.completed_tasks || []);
          const r = res(e.resources);
          return '<tr><td><a href="#/frameworks/' + enc(f.id) + '">' + esc(f.name || f.id) + '</a></td>' +
            '<td class="mono">' + esc(e.id) + (done ? ' <span class="muted">(ended)</span>' : '') + '</td>' +
            '<td>' + esc(e.name) + '</td><td>' +
            tasks.slice(0, 10).map((t) => esc(t.id) + ' ' + stateBadge(t.state)).join('<br>') +
            (tasks.length > 10 ? '<br><span class="muted">and ' + (tasks.length - 10) + ' more</span>' : '') +
            '</td><td class="num">' + num(r.cpus) + '</td><td class="num">' + mem(r.mem) + '</td>' +
            '<td><a href="#/sandbox?slave=' + enc(id) + '&framework=' + enc(f.id) + '&executor=' +
            enc(e.id) + '">sandbox</a></td></tr>';
        }, (p) => { page = p; render(); });
    }
    async function load() {
      await summaryReady();
      const s = slaveById(id);
      if (!s) {
        $('about').innerHTML = '<p class="muted">The master knows no slave ' + esc(id) + '.</p>';
        $('executors').innerHTML = '';
        return;
      }
      $('title').textContent = s.hostname;
      const r = res(s.resources), u = res(s.used_resources), o = res(s.offered_resources);
      $('about').innerHTML = '<div class="panel"><dl class="kv"><dt>ID</dt><dd class="mono">' + esc(s.id) +
        '</dd><dt>Pid</dt><dd class="mono">' + esc(s.pid) + '</dd><dt>CPUs</dt><dd>' + num(u.cpus) +
        ' used, ' + num(o.cpus) + ' offered, of ' + num(r.cpus) + '</dd><dt>Memory</dt><dd>' + mem(u.mem) +
        ' used, ' + mem(o.mem) + ' offered, of ' + mem(r.mem) + '</dd><dt>Disk</dt><dd>' + mem(r.disk) +
        '</dd><dt>Ports</dt><dd>' + esc(r.ports || '') + '</dd><dt>Reserved</dt><dd>' +
        Object.entries(s.reserved_resources || {}).map(([role, rr]) => esc(role) + ': ' + num(rr.cpus) +
          ' cpus, ' + mem(rr.mem)).join('; ') + '</dd><dt>Attributes</dt><dd>' + attributes(s.attributes) +
        '</dd><dt>Tasks</dt><dd>' + Object.entries(taskCounts(s)).filter(([, n]) => n > 0)
          .map(([st, n]) => stateBadge(st) + ' ' + n).join(' &nbsp; ') + '</dd><dt>Registered</dt><dd>' +
        esc(when(s.registered_time)) + '</dd></dl></div>';
      try {
        state = await slaveState(s);
        render();
      } catch (error) {
        if ($('executors')) $('executors').innerHTML = errorBox(error.message);
      }
    }
    load();
    // Live: the slave asked again when the stream tells of a change on it,
    // at most every 2 s.
    const reload = throttled(load, 2000);
    return { update(changes) { if (!changes || changes.slaves.has(id)) reload(); }, leave: reload.cancel };
  };

  views.roles = function () {
    setView('<h1>Roles</h1><div id="guarantees"></div><div id="table"><p class="muted">Loading&hellip;</p></div>');
    let page = 0;
    async function update() {
      let data;
      try {
        data = await fetchRoles(ui.interval);
      } catch (error) {
        if ($('table')) $('table').innerHTML = errorBox(error.message);
        return;
      }
      if (!$('table')) return;
      const g = data.guarantees || {};
      const cluster = res(g.cluster);
      const total = res(g.total);
      $('guarantees').innerHTML = '<div class="panel" style="margin-bottom:1rem"><dl class="kv">' +
        '<dt>Guaranteed</dt><dd>' + num(total.cpus) + ' cpus, ' + mem(total.mem) + '</dd>' +
        '<dt>Cluster</dt><dd>' + num(cluster.cpus) + ' cpus, ' + mem(cluster.mem) + '</dd>' +
        '<dt>Satisfiable</dt><dd>' + (g.satisfiable === false
          ? '<strong style="color:#842029">no: the slaves cannot meet every guarantee at once</strong>' : 'yes') +
        '</dd></dl></div>';
      const clusterTotal = ui.summary ? totals(ui.summary).total : cluster;
      page = pagedTable($('table'), data.roles || [], page,
        '<th>Role</th><th class="num">Weight</th><th class="num">Priority</th><th>Guarantee</th>' +
        '<th>Quota guarantee</th><th>Quota limit</th><th>Quota consumed</th>' +
        '<th class="num">Frameworks</th><th class="num">CPUs held</th><th class="num">Memory held</th>' +
        '<th class="num">Share</th>',
        (r) => {
          const held = res(r.resources), gr = res(r.guarantee);
          const q = r.quota || {};
          // Quota amounts are plain {name: value} objects (docs/quota.md).
          const amounts = (o, none) => {
            const names = Object.keys(o || {});
            if (!names.length) return '<span class="muted">' + none + '</span>';
            return names.sort().map((n) => esc(n) + ' ' + (n === 'mem' || n === 'disk' ? mem(o[n]) : num(o[n]))).join(', ');
          };
          const shareOf = Math.max(share(held.cpus || 0, clusterTotal.cpus || 0), share(held.mem || 0, clusterTotal.mem || 0));
          return '<tr><td>' + esc(r.name) + '</td><td class="num">' + num(r.weight) + '</td><td class="num">' +
            num(r.priority) + '</td><td>' + (Object.keys(gr).length ? num(gr.cpus) + ' cpus, ' + mem(gr.mem) :
            '<span class="muted">none</span>') + '</td><td>' + amounts(q.guarantee, 'none') + '</td><td>' +
            amounts(q.limit, 'unlimited') + '</td><td>' + amounts(q.consumed, 'nothing') +
            '</td><td class="num">' + (r.frameworks || []).length +
            '</td><td class="num">' + num(held.cpus) + '</td><td class="num">' + mem(held.mem) + '</td>' +
            '<td class="num">' + percent(shareOf) + '</td></tr>';
        }, (p) => { page = p; update(); });
    }
    update();
    return { update, ownData: true };
  };

  // Offers are listed only in /state (the whole cluster): asked when this
  // page is shown and then every five poll periods, at least 15 s apart.
  views.offers = function () {
    setView('<h1>Offers outstanding</h1><div class="toolbar muted" id="offers-note">from the master\'s /state</div>' +
      '<div id="table"><p class="muted">Loading&hellip;</p></div>');
    let page = 0;
    let offers = [];
    let at = 0;
    function render() {
      if (!$('table')) return;
      page = pagedTable($('table'), offers, page,
        '<th>Offer</th><th>Framework</th><th>Slave</th><th class="num">CPUs</th><th class="num">Memory</th>' +
        '<th class="num">Disk</th><th>Ports</th>',
        ({ o, f }) => {
          const r = res(o.resources), s = slaveById(o.slave_id);
          return '<tr><td class="mono">' + esc(o.id) + '</td><td><a href="#/frameworks/' + enc(f.id) + '">' +
            esc(f.name || f.id) + '</a></td><td><a href="#/slaves/' + enc(o.slave_id) + '">' +
            esc(s ? s.hostname : o.slave_id) + '</a></td><td class="num">' + num(r.cpus) + '</td><td class="num">' +
            mem(r.mem) + '</td><td class="num">' + mem(r.disk) + '</td><td>' + esc(r.ports || '') + '</td></tr>';
        }, (p) => { page = p; render(); });
    }
    async function update() {
      if (Date.now() - at < Math.max(15000, 5 * ui.interval)) return;
      at = Date.now();
      try {
        const state = await getJSON('state');
        offers = [];
        for (const f of state.frameworks || []) for (const o of f.offers || []) offers.push({ o, f });
        if ($('offers-note')) {
          $('offers-note').textContent = 'from the master\'s /state at ' + new Date().toLocaleTimeString() +
            '; asked again every ' + num(Math.max(15000, 5 * ui.interval) / 1000, 0) + ' s';
        }
        render();
      } catch (error) {
        if ($('table')) $('table').innerHTML = errorBox(error.message);
      }
    }
    update();
    return { update, ownData: true };
  };

  // A sandbox: the executor's directory on its slave, browsed and read
  // through the slave's /files. Found from ?framework=&task= (the master's
  // /tasks names the slave and executor) or ?slave=&framework=&executor=.
  const sandboxes = new Map();  // "slave/framework/executor" -> {base, directory, task}

  async function findSandbox(params) {
    const frameworkId = params.get('framework');
    let slaveId = params.get('slave');
    let executorId = params.get('executor');
    const taskId = params.get('task');
    let task = null;
    if (taskId && (!slaveId || !executorId)) {
      const answer = await getJSON('tasks?framework_id=' + enc(frameworkId) + '&task_id=' + enc(taskId) + '&limit=1');
      task = answer.tasks[0];
      if (!task) throw new Error('the master knows no task ' + taskId + ' of framework ' + frameworkId);
      slaveId = task.slave_id;
      executorId = task.executor_id || '';
    }
    const key = slaveId + '/' + frameworkId + '/' + (executorId || taskId);
    if (sandboxes.has(key)) return Object.assign({}, sandboxes.get(key), task ? { task } : {});
    await summaryReady();
    let slave = slaveById(slaveId);
    if (!slave && !ui.feed.live) {
      // A slave newer than the summary this page keeps (the stream's is
      // current).
      ui.summary = await getJSON('state-summary');
      ui.summaryAt = Date.now();
      slave = slaveById(slaveId);
    }
    if (!slave) throw new Error('the master knows no slave ' + slaveId + ' (the sandbox went with it)');
    const state = await slaveState(slave);
    const frameworks = (state.frameworks || []).concat(state.completed_frameworks || []);
    let directory = null;
    for (const f of frameworks) {
      if (f.id !== frameworkId) continue;
      for (const e of (f.executors || []).concat(f.completed_executors || [])) {
        const tasks = (e.tasks || []).concat(e.queued_tasks || [], e.completed_tasks || []);
        if ((executorId && e.id === executorId) || (!executorId && (e.id === taskId || tasks.some((t) => t.id === taskId)))) {
          directory = e.directory;
          executorId = e.id;
        }
      }
    }
    if (!directory) {
      throw new Error('slave ' + slave.hostname + ' no longer knows the executor ' + (executorId || taskId) +
        ' of framework ' + frameworkId + ': its sandbox is gone');
    }
    const found = { base: pidParts(slave.pid).base, directory, slave, executorId };
    sandboxes.set(key, found);
    return Object.assign({}, found, task ? { task } : {});
  }

  function sandboxHash(params, change) {
    const p = new URLSearchParams(params);
    for (const [k, v] of Object.entries(change)) {
      if (v === null) p.delete(k);
      else p.set(k, v);
    }
    return '#/sandbox?' + p.toString();
  }

  views.sandbox = function (params) {
    const rel = (params.get('path') || '').replace(/^\/+|\/+$/g, '');
    const file = params.get('file');
    setView('<div class="crumbs"><a href="#/frameworks/' + enc(params.get('framework') || '') + '">Framework</a>' +
      ' / sandbox</div><h1>Sandbox of ' + esc(params.get('task') || params.get('executor') || '') + '</h1>' +
      '<div id="about" class="muted">Finding the sandbox&hellip;</div><div id="crumbs" class="crumbs"></div>' +
      '<div id="content"></div>');
    let stopped = false;
    let timer = null;
    let box = null;

    function crumbs() {
      const parts = (file || rel).split('/').filter((x) => x);
      let html = '<a href="' + esc(sandboxHash(params, { path: null, file: null })) + '">sandbox</a>';
      let acc = '';
      parts.forEach((part, i) => {
        acc += (acc ? '/' : '') + part;
        html += ' / ' + (i === parts.length - 1 ? '<strong>' + esc(part) + '</strong>'
          : '<a href="' + esc(sandboxHash(params, { path: acc, file: null })) + '">' + esc(part) + '</a>');
      });
      $('crumbs').innerHTML = html;
    }

    async function browse() {
      const listing = await getJSON(box.base + '/files/browse?path=' + enc(box.directory + (rel ? '/' + rel : '')));
      if (stopped) return;
      const prefix = box.directory.replace(/\/+$/, '') + '/';
      const rows = listing.map((entry) => {
        const name = entry.path.split('/').pop();
        const inside = entry.path.startsWith(prefix) ? entry.path.slice(prefix.length) : (rel ? rel + '/' : '') + name;
        const dir = entry.mode && entry.mode[0] === 'd';
        const href = dir ? sandboxHash(params, { path: inside, file: null }) : sandboxHash(params, { file: inside, path: null });
        return '<tr><td class="mono">' + esc(entry.mode) + '</td><td><a href="' + esc(href) + '">' + esc(name) +
          (dir ? '/' : '') + '</a></td><td class="num">' + (dir ? '' : bytes(entry.size)) + '</td><td>' +
          esc(when(entry.mtime)) + '</td><td>' + esc(entry.uid) + '</td><td>' + (dir ? '' :
          '<a href="' + esc(box.base + '/files/download?path=' + enc(entry.path)) + '">download</a>') + '</td></tr>';
      }).join('');
      $('content').innerHTML = '<table class="data table table-sm" id="listing"><thead><tr><th>Mode</th><th>Name</th>' +
        '<th class="num">Size</th><th>Modified</th><th>Owner</th><th></th></tr></thead><tbody>' +
        (rows || '<tr><td colspan="6" class="muted">empty</td></tr>') + '</tbody></table>';
    }

    // Shows the last 64 KiB, then follows: reads from where it stopped,
    // every second while the file grows, backing off to 10 s while not.
    async function tail() {
      const path = box.directory + '/' + file;
      const url = box.base + '/files/read?path=' + enc(path);
      $('content').innerHTML = '<div class="toolbar"><label><input type="checkbox" id="follow" checked> follow</label>' +
        '<span class="muted" id="file-note"></span><a href="' + esc(box.base + '/files/download?path=' + enc(path)) +
        '">download</a></div><pre class="file" id="file"></pre>';
      const size = (await getJSON(url)).offset;
      let offset = Math.max(0, size - READ_LENGTH);
      let delay = 1000;
      const pre = $('file');
      const step = async () => {
        if (stopped) return;
        let grew = false;
        try {
          for (;;) {
            const piece = await getJSON(url + '&offset=' + offset + '&length=' + READ_LENGTH);
            if (stopped) return;
            if (!piece.data) break;
            grew = true;
            offset = piece.offset + piece.data.length;
            const follow = $('follow').checked;
            const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
            let text = pre.textContent + piece.data;
            if (text.length > MAX_FILE_TEXT) text = text.slice(text.length - MAX_FILE_TEXT);
            pre.textContent = text;
            if (follow && atBottom) pre.scrollTop = pre.scrollHeight;
            if (piece.data.length < READ_LENGTH) break;
          }
          $('file-note').textContent = bytes(offset) + (offset > MAX_FILE_TEXT ? ' (the last ' + bytes(MAX_FILE_TEXT) + ' shown)' : '');
        } catch (error) {
          $('file-note').textContent = error.message;
        }
        delay = grew ? 1000 : Math.min(10000, delay * 1.5);
        if ($('follow').checked) timer = setTimeout(step, delay);
      };
      $('follow').onchange = () => { clearTimeout(timer); if ($('follow').checked) step(); };
      await step();
      pre.scrollTop = pre.scrollHeight;
    }

    (async () => {
      try {
        box = await findSandbox(params);
        if (stopped) return;
        const t = box.task;
        $('about').innerHTML = '<div class="panel"><dl class="kv">' +
          (t ? '<dt>Task</dt><dd class="mono">' + esc(t.id) + ' ' + stateBadge(t.state) + '</dd>' : '') +
          '<dt>Executor</dt><dd class="mono">' + esc(box.executorId) + '</dd><dt>Slave</dt><dd><a href="#/slaves/' +
          enc(box.slave.id) + '">' + esc(box.slave.hostname) + '</a></dd><dt>Directory</dt><dd class="mono">' +
          esc(box.directory) + '</dd></dl></div>';
        crumbs();
        if (file) await tail();
        else await browse();
      } catch (error) {
        if (!stopped) $('content').innerHTML = errorBox(error.message);
        if (!stopped) $('about').textContent = '';
      }
    })();
    return { ownData: true, leave() { stopped = true; clearTimeout(timer); } };
  };

  // ---- routing --------------------------------------------------------------

  function route() {
    if (ui.view && ui.view.leave) ui.view.leave();
    const { parts, params } = parseHash();
    const [first, second] = parts;
    let name = first || 'overview';
    if (name === 'frameworks' && second) ui.view = views.framework(second);
    else if (name === 'slaves' && second) ui.view = views.slave(second);
    else if (name === 'sandbox') ui.view = views.sandbox(params);
    else if (['overview', 'frameworks', 'slaves', 'roles', 'offers'].includes(name)) ui.view = views[name]();
    else {
      name = '';
      ui.view = null;
      setView(errorBox('No page ' + location.hash));
    }
    for (const link of document.querySelectorAll('#nav a')) {
      const active = link.dataset.view === name || (name === 'sandbox' && link.dataset.view === 'frameworks');
      link.classList.toggle('active', active);
    }
    window.scrollTo(0, 0);
  }

  window.addEventListener('hashchange', route);
  route();
  startFeed();
  poll();
})();
