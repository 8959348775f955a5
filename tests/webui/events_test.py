#!/usr/bin/env python3
"""src/webui/events.js in headless Chromium against scripted answers
(tests/webui/events_test.js stubs fetch): the summary it builds from
SUBSCRIBED and the events, the RecordIO framing split anywhere, and when a
stream ends for good or is to be asked again.

  events_test.py <source dir>
Exits 0 when every check holds, 1 listing those that do not, 77 (skipped)
without /usr/bin/chromium (or $CHROMIUM).
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from live_page import Browser  # noqa: E402


def main():
    source = sys.argv[1]
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not os.access(chromium, os.X_OK):
        print("SKIP: %s is missing (install the Debian package chromium)" % chromium)
        return 77
    with open(os.path.join(source, "src/webui/events.js")) as f:
        events_js = f.read()
    with open(os.path.join(source, "tests/webui/events_test.js")) as f:
        test_js = f.read()
    profile = tempfile.mkdtemp(prefix="mesos-events-test.")
    log = open(os.devnull, "w")
    browser = Browser(chromium, profile, log)
    try:
        browser.open("about:blank")
        loaded = browser.call("Runtime.evaluate", {"expression": events_js})
        if "exceptionDetails" in loaded:
            print("FAIL: events.js did not load: %s" % loaded["exceptionDetails"])
            return 1
        result = browser.call("Runtime.evaluate", {"expression": test_js, "awaitPromise": True,
                                                   "returnByValue": True})
        if "exceptionDetails" in result:
            print("FAIL: events_test.js threw: %s" % result["exceptionDetails"])
            return 1
        failures = result["result"].get("value")
        if failures is None or not isinstance(failures, list):
            print("FAIL: events_test.js gave no list: %s" % result)
            return 1
        for failure in failures:
            print("FAIL: " + failure)
        if failures:
            return 1
        print("PASS: events.js builds the summary from the events and ends as it should")
        return 0
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
