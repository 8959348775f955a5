#!/usr/bin/env python3
"""The web UI following the master's event stream, in headless Chromium on
real time (docs/web-ui.md, "Live or polling").

A page whose stream stays open never lets --virtual-time-budget settle, so
this drives Chromium through the DevTools protocol on a pipe
(--remote-debugging-pipe: NUL-terminated JSON on file descriptors 3 and 4)
and reads the page's DOM and its fetches (Resource Timing) as it goes.

  live_page.py --chromium PATH --profile DIR --url URL --out FILE
               --task NAME [--then COMMAND] [--intruder COMMAND] -- COMMAND...

Loads URL (the overview), waits until the page says it is live, runs
COMMAND (which launches the task NAME), waits until the overview's active
tasks show NAME in TASK_RUNNING, and checks that the page asked neither
/state-summary nor /tasks after it went live, and that its cards and tasks
by state agree with the master's /state-summary. With --then (a shell
command that runs a task to its end), runs it and checks again.

With --intruder (a shell command that subscribes to the same master, whose
--max_operator_event_stream_subscribers is 1, and exits 1 when its own
stream is closed): runs it, so that the master closes the page's stream;
checks that the page then polls /state-summary, subscribes again (which
closes the intruder's stream: it exits 1) and is live again.

Writes the final DOM to FILE. Exits 0 when every check holds, 1 with a line
saying which did not.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request


class Browser:
    def __init__(self, chromium, profile, log):
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()

        def child():
            os.dup2(commands_read, 3)
            os.dup2(answers_write, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
             "--remote-debugging-pipe", "about:blank"],
            preexec_fn=child, pass_fds=(3, 4, commands_read, answers_write),
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        os.close(commands_read)
        os.close(answers_write)
        self._buffer = b""
        self._id = 0
        self.session = None

    def call(self, method, params=None, session=True):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._answers, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed its DevTools pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError("%s: %s" % (method, answer["error"]))
                return answer["result"]

    def open(self, url):
        target = self.call("Target.createTarget", {"url": url}, session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result["result"].get("value")

    def dom(self):
        return self.evaluate("document.documentElement.outerHTML") or ""

    # The paths the page fetched, in order (Resource Timing).
    def fetched(self):
        return self.evaluate(
            "performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)") or []

    def close(self):
        self.process.kill()
        self.process.wait()


def wait_until(what, predicate, seconds):
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("%s within %d s" % (what, seconds))
        time.sleep(0.2)


LIVE_STATES = ("TASK_STAGING", "TASK_STARTING", "TASK_RUNNING", "TASK_KILLING")


def number(x, digits=2):
    """As app.js's num(): rounded, no trailing zeros."""
    text = "%.*f" % (digits, round(x, digits))
    return text.rstrip("0").rstrip(".") if "." in text else text


def megabytes(mb):
    """As app.js's mem()."""
    if not mb:
        return "0 B"
    if mb >= 1024 * 1024:
        return number(mb / (1024 * 1024), 1) + " TB"
    if mb >= 1024:
        return number(mb / 1024, 1) + " GB"
    return number(mb, 0) + " MB"


def expected_overview(summary):
    """The overview's cards and tasks by state, as /state-summary gives
    them to a polling page."""
    frameworks, slaves = summary["frameworks"], summary["slaves"]
    total = lambda name, field: sum(s.get(field, {}).get(name, 0) for s in slaves)
    counts = {}
    for f in frameworks:
        for key, n in f.items():
            if key.startswith("TASK_") and n:
                counts[key] = counts.get(key, 0) + n
    cards = {
        "Slaves": str(len(slaves)),
        "Frameworks": str(len(frameworks)),
        "Running tasks": str(counts.get("TASK_RUNNING", 0)),
        "Live tasks": str(sum(counts.get(state, 0) for state in LIVE_STATES)),
        "CPUs used": number(total("cpus", "used_resources")) + " / " + number(total("cpus", "resources")),
        "Memory used": megabytes(total("mem", "used_resources")) + " / " +
                       megabytes(total("mem", "resources")),
    }
    return cards, counts


def shown_overview(dom):
    cards = dict(re.findall(r'<div class="label">([^<]*)</div><div class="value">([^<]*)</div>', dom))
    states = re.search(r'<div id="states">(.*?)</div>', dom)
    counts = dict((state, int(n)) for state, n in re.findall(
        r'<span class="state (TASK_[A-Z_]+)">[^<]*</span></td><td class="num">(\d+)</td>',
        states.group(1) if states else ""))
    return cards, counts


def state_summary(url):
    parts = urllib.parse.urlsplit(url)
    base = "%s://%s%s" % (parts.scheme, parts.netloc, parts.path)
    with urllib.request.urlopen(base + "state-summary", timeout=10) as answer:
        return json.load(answer)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--profile", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--task", required=True)
    parser.add_argument("--intruder")
    parser.add_argument("--then")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()

    log = open(args.out + ".chromium.log", "w")
    browser = Browser(args.chromium, args.profile, log)
    launched = None
    try:
        browser.open(args.url)
        live = re.compile(r'id="feed"[^>]*>live<')
        wait_until("the page did not say it is live", lambda: live.search(browser.dom()), 30)
        before = len(browser.fetched())

        launched = subprocess.Popen(args.command, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        row = re.compile(r"<td>" + re.escape(args.task) +
                         r'</td><td><a href="#/frameworks/[^"]+">[^<]*</a></td><td>'
                         r'<span class="state TASK_RUNNING">')
        wait_until("the overview did not show %s TASK_RUNNING" % args.task,
                   lambda: row.search(browser.dom()), 60)
        dom = browser.dom()
        after = browser.fetched()[before:]
        asked = [path for path in after if path.endswith(("/state-summary", "/tasks"))]
        if asked:
            raise AssertionError("the page asked %s while live" % ", ".join(asked))
        if not live.search(dom):
            raise AssertionError("the page is no longer live")
        if not re.search(r"\b[1-9][0-9]* events\b", dom):
            raise AssertionError("the status line counts no event")
        print("live: %s shown TASK_RUNNING from the stream; fetched meanwhile: %s" %
              (args.task, ", ".join(sorted(set(after))) or "nothing"))

        # What the events made of SUBSCRIBED is what the master says now.
        def agree():
            compared = {}

            def agrees():
                compared["expected"] = expected_overview(state_summary(args.url))
                compared["shown"] = shown_overview(browser.dom())
                return compared["expected"] == compared["shown"]
            try:
                wait_until("the overview did not agree with /state-summary", agrees, 10)
            except AssertionError as error:
                raise AssertionError("%s: it shows %s, /state-summary says %s" %
                                     (error, compared["shown"], compared["expected"]))
            print("live: the overview agrees with /state-summary: %s" % (compared["shown"],))
        agree()
        if args.then:
            # A task that runs and ends, its framework with it, while live.
            before = len(browser.fetched())
            if subprocess.run(args.then, shell=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=60).returncode != 0:
                raise AssertionError("--then failed: %s" % args.then)
            agree()
            asked = [path for path in browser.fetched()[before:]
                     if path.endswith(("/state-summary", "/tasks"))]
            if asked or not live.search(browser.dom()):
                raise AssertionError("the page polled (%s) or is no longer live" % ", ".join(asked))

        if args.intruder:
            before = len(browser.fetched())
            intruder = subprocess.Popen(args.intruder, shell=True, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
            try:
                status = intruder.wait(timeout=30)
            except subprocess.TimeoutExpired:
                intruder.kill()
                raise AssertionError("the page did not subscribe again within 30 s "
                                     "(the intruder's stream stayed open)")
            if status != 1:
                raise AssertionError("the intruder exited %d, not 1" % status)
            wait_until("the page was not live again", lambda: live.search(browser.dom()), 30)
            asked = browser.fetched()[before:]
            # (A stream's own entry may never be listed: its subscribing
            # again shows in the intruder's exit.)
            if not any(path.endswith("/state-summary") for path in asked):
                raise AssertionError("the page did not poll /state-summary after its stream ended "
                                     "(it asked: %s)" % (", ".join(asked) or "nothing"))
            print("live again after the master closed the page's stream; fetched meanwhile: %s" %
                  ", ".join(sorted(set(asked))))
            dom = browser.dom()

        with open(args.out, "w") as out:
            out.write(dom)
        return 0
    except (AssertionError, RuntimeError) as error:
        try:
            with open(args.out, "w") as out:
                out.write(browser.dom())
        except Exception:
            pass
        print("FAIL: %s (DOM in %s)" % (error, args.out), file=sys.stderr)
        return 1
    finally:
        if launched:
            launched.terminate()
            launched.wait()
        browser.close()


if __name__ == "__main__":
    sys.exit(main())
