#!/usr/bin/env python3
"""Open a self-contained HTML report in headless Chromium and check it as a user's browser would.

    browser_check.py REPORT.html [--screenshot OUT.png] [--pdf OUT.pdf] [--width 1280] [--height 900] [--full-page]

Drives Chromium with the DevTools protocol over --remote-debugging-pipe (stdlib only): NUL-terminated
JSON commands go to its fd 3, responses and events come back on its fd 4. Prints one JSON object.
Exit 0: loaded, no console error, no exception, no request leaving the file, every svg has a non-empty
box; 1 otherwise (one stderr line per problem); 2: usage error or Chromium could not be started.
Accessibility facts (hasTitle, hasLabel) and the findings section (its place among the headings,
its rendered box, each li.finding's data attributes and text) are reported, not judged: the
caller asserts on them.
"""
import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urldefrag

# The machine running the tests is heavily loaded: timeouts are generous and only bound a hang.
CALL_TIMEOUT = 60
LOAD_TIMEOUT = 60
CAPTURE_TIMEOUT = 180   # a full-page screenshot or PDF of a large report can take a while
CLOSE_TIMEOUT = 20
SETTLE_SECONDS = 0.5    # let events queued right after the load event arrive
MAX_FULL_PAGE = 20000   # px; beyond this Chromium's screenshot buffers get impractical

# Runs in the page; getBoundingClientRect forces layout, so sizes are what the user would see.
PAGE_FACTS = """(() => {
  const svgs = Array.from(document.querySelectorAll('svg'));
  return {
    title: document.title,
    scrollHeight: document.documentElement.scrollHeight,
    svgs: svgs.map(s => {
      const r = s.getBoundingClientRect();
      const t = s.querySelector('title');
      return {label: s.id || s.getAttribute('aria-label') || (t ? t.textContent.trim() : ''),
              width: r.width, height: r.height, hasTitle: s.querySelector(':scope > title') !== null,
              hasLabel: s.hasAttribute('aria-labelledby') || s.hasAttribute('aria-label')};
    }),
    findings: (() => {
      // section#findings: where it stands (after the title, before Provenance, holding the first
      // h2), whether it has a rendered box, and its items as the reader sees them.
      const section = document.querySelector('section#findings');
      if (!section) return null;
      const follows = (a, b) => !!(a && b && (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING));
      const title = document.querySelector('h1'), provenance = document.getElementById('provenance');
      const heading = section.querySelector('h2'), box = section.getBoundingClientRect();
      return {
        heading: heading ? heading.textContent : null,
        afterTitle: follows(title, section),
        beforeProvenance: follows(section, provenance),
        firstHeadingAfterTitle: heading !== null && document.querySelector('h2') === heading,
        firstSection: document.querySelector('section') === section,
        renderedAboveProvenance: !!provenance && box.height > 0 && box.bottom <= provenance.getBoundingClientRect().top,
        items: Array.from(section.querySelectorAll('li.finding')).map(li => ({
          model: li.dataset.model, baseline: li.dataset.baseline, current: li.dataset.current,
          measure: li.dataset.measure, verdict: li.dataset.verdict, text: li.textContent})),
      };
    })(),
  };
})()"""


class CDPError(Exception):
    pass


class Pipe:
    """DevTools protocol over a pair of pipes; events are handed to on_event as they arrive."""

    def __init__(self, wfd, rfd, on_event):
        self.wfd, self.rfd, self.on_event = wfd, rfd, on_event
        self.next_id, self.buf, self.responses = 0, bytearray(), {}

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self.wfd, data):]
        except OSError as e:  # EPIPE once Chromium has gone away
            raise CDPError(f"{method}: cannot write to Chromium ({e})") from None
        return self.next_id

    def pump(self, timeout):
        """Read whatever arrives within `timeout` s; False once Chromium closed its end."""
        if not select.select([self.rfd], [], [], max(0.0, timeout))[0]:
            return True
        chunk = os.read(self.rfd, 1 << 20)
        if not chunk:
            return False
        # Only the new chunk can hold a new terminator; a bytearray keeps multi-MB screenshots cheap.
        start = len(self.buf)
        self.buf += chunk
        while (i := self.buf.find(b"\0", start)) >= 0:
            msg = json.loads(self.buf[:i])
            del self.buf[:i + 1]
            start = 0
            if "id" in msg:
                self.responses[msg["id"]] = msg
            else:
                self.on_event(msg)
        return True

    def wait(self, done, timeout, what):
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError(f"timed out after {timeout} s waiting for {what}")
            if not self.pump(left):
                raise CDPError(f"Chromium closed the pipe while waiting for {what}")

    def call(self, method, params=None, session=None, timeout=CALL_TIMEOUT):
        i = self.send(method, params, session)
        self.wait(lambda: i in self.responses, timeout, method)
        msg = self.responses.pop(i)
        if "error" in msg:
            raise CDPError(f"{method}: {msg['error'].get('message')}")
        return msg.get("result", {})


def remote_text(obj):
    """A console argument (a Runtime.RemoteObject) as the text DevTools would show."""
    if "value" in obj:
        return obj["value"] if isinstance(obj["value"], str) else json.dumps(obj["value"])
    return obj.get("description") or obj.get("unserializableValue") or obj.get("type", "?")


class Chromium:
    """Headless Chromium driven over --remote-debugging-pipe, with one page target attached.

    .cdp is the Pipe, .session the page's session id, .log Chromium's own output (a temporary
    file). start() raises OSError when Chromium cannot be run and CDPError when it does not answer
    on the pipe; close() ends it and removes its profile, whatever happened before.
    """

    def __init__(self, width, height, on_event):
        self.width, self.height, self.on_event = width, height, on_event
        self.proc, self.cdp, self.session = None, None, None
        self.profile = tempfile.mkdtemp(prefix="browser_check_profile_")
        self.log = tempfile.TemporaryFile()  # shown only when something failed
        self.to_w = self.from_r = None

    def start(self):
        chromium = shutil.which("chromium") or "/usr/bin/chromium"
        to_r, self.to_w = os.pipe()      # we write commands -> Chromium's fd 3
        self.from_r, from_w = os.pipe()  # Chromium's fd 4 -> we read responses and events

        def child_fds():
            # Runs in the child before exec. Move both ends above 10 first so that putting one on 3 or 4
            # cannot overwrite the other; pass_fds=(3, 4) then keeps them open across close_fds. (Both
            # numbers are open in this process, which subprocess needs: the two pipes took the lowest.)
            a, b = fcntl.fcntl(to_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_w, fcntl.F_DUPFD, 10)
            for high, fd in ((a, 3), (b, 4)):
                os.dup2(high, fd)  # os.dup2 makes the copy inheritable, so it survives exec
                os.close(high)

        cmd = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", f"--user-data-dir={self.profile}",
               f"--window-size={self.width},{self.height}", "--remote-debugging-pipe", "about:blank"]
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                         pass_fds=(3, 4), preexec_fn=child_fds)
        except subprocess.SubprocessError as e:
            raise OSError(f"cannot run {chromium}: {e}") from None
        finally:
            os.close(to_r)
            os.close(from_w)
        self.cdp = Pipe(self.to_w, self.from_r, self.on_event)
        target = self.cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.cdp.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        return self

    def close(self):
        if self.proc is not None:
            try:
                if self.cdp:
                    self.cdp.send("Browser.close")  # no need to wait for the answer: the exit is the answer
            except CDPError:
                pass
            try:
                self.proc.wait(CLOSE_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for fd in (self.to_w, self.from_r):
            if fd is not None:
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


def short(url):
    # Inline data: images can be megabytes long; their scheme is all the report needs to show.
    return url if len(url) <= 160 or not url.startswith("data:") else f"{url[:100]}...({len(url)} chars)"


def print_tail(log):
    log.seek(0)
    tail = log.read().decode(errors="replace").splitlines()[-20:]
    if tail:
        print(f"browser_check: last {len(tail)} lines of Chromium's output:", *tail, sep="\n", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])  # usage errors exit 2
    ap.add_argument("report")
    ap.add_argument("--screenshot", metavar="OUT.png")
    ap.add_argument("--pdf", metavar="OUT.pdf")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--full-page", action="store_true")
    args = ap.parse_args()
    report = Path(args.report).resolve()
    if args.width <= 0 or args.height <= 0:
        ap.error("--width and --height must be positive")
    if not report.is_file():
        ap.error(f"no such file: {report}")
    own_url = report.as_uri()
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(chromium, os.X_OK):
        print(f"browser_check: chromium not found or not executable: {chromium}", file=sys.stderr)
        return 2

    st = {"session": None, "loaded": False}
    out = {"title": None, "svgCount": 0, "svgs": [], "findings": None, "consoleErrors": [], "exceptions": [],
           "logErrors": [], "requests": [], "externalRequests": [], "screenshotBytes": None, "pdfBytes": None}
    problems = []

    def on_event(msg):
        if st["session"] is None or msg.get("sessionId") != st["session"]:
            return  # browser-level events (target created/attached) carry nothing to check
        m, p = msg.get("method"), msg.get("params", {})
        if m == "Page.loadEventFired":
            st["loaded"] = True
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            frames = (p.get("stackTrace") or {}).get("callFrames") or [{}]
            where = f" ({frames[0]['url']}:{frames[0].get('lineNumber', 0) + 1})" if frames[0].get("url") else ""
            out["consoleErrors"].append(" ".join(remote_text(a) for a in p.get("args", [])) + where)
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            # The description's first line is "Type: message"; the rest is a stack already located below.
            text = ((d.get("exception") or {}).get("description") or d.get("text") or "exception").split("\n")[0]
            out["exceptions"].append(f"{text} ({d.get('url', '')}:{d.get('lineNumber', 0) + 1})")
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            # Reported unfiltered (e.g. "Failed to load resource"); the exit status does not use them,
            # their causes show up as requests or console errors, which it does use.
            e = p["entry"]
            out["logErrors"].append(f"[{e.get('source')}] {e.get('text')} {short(e.get('url', ''))}".rstrip())
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            out["requests"].append(short(url))
            # Compare the fragment-less, percent-decoded URL: Chromium and Path.as_uri escape differently.
            if not url.startswith("data:") and not unquote(urldefrag(url)[0]).startswith(unquote(own_url)):
                out["externalRequests"].append(short(url))

    browser = Chromium(args.width, args.height, on_event)
    log, status = browser.log, 1
    try:
        try:
            browser.start()
            st["session"] = browser.session
            cdp = browser.cdp
        except (OSError, CDPError) as e:
            print(f"browser_check: could not start {chromium} for DevTools: {e}", file=sys.stderr)
            status = 2
            return 2
        s = st["session"]
        # Everything is switched on before navigating so nothing the page does on load is missed.
        for domain in ("Page", "Runtime", "Log", "Network"):
            cdp.call(f"{domain}.enable", session=s)
        metrics = {"width": args.width, "height": args.height, "deviceScaleFactor": 1, "mobile": False}
        cdp.call("Emulation.setDeviceMetricsOverride", metrics, s)
        try:
            nav = cdp.call("Page.navigate", {"url": own_url}, s)
            if nav.get("errorText"):
                problems.append(f"navigation to {own_url} failed: {nav['errorText']}")
            else:
                cdp.wait(lambda: st["loaded"], LOAD_TIMEOUT, "Page.loadEventFired")
                deadline = time.monotonic() + SETTLE_SECONDS
                while time.monotonic() < deadline and cdp.pump(deadline - time.monotonic()):
                    pass
        except CDPError as e:
            problems.append(f"page did not load: {e}")

        res = cdp.call("Runtime.evaluate", {"expression": PAGE_FACTS, "returnByValue": True}, s)
        if "exceptionDetails" in res:
            problems.append(f"could not inspect the page: {res['exceptionDetails'].get('text')}")
        facts = res.get("result", {}).get("value") or {"title": None, "svgs": [], "scrollHeight": 0}
        out.update(title=facts["title"], svgCount=len(facts["svgs"]), svgs=facts["svgs"], findings=facts.get("findings"))

        for name, method, params, path, key in (
                ("PDF", "Page.printToPDF", {"printBackground": True}, args.pdf, "pdfBytes"),
                ("screenshot", "Page.captureScreenshot", {"format": "png"}, args.screenshot, "screenshotBytes")):
            if not path:
                continue
            try:
                if key == "screenshotBytes" and args.full_page:
                    height = min(max(facts["scrollHeight"], args.height), MAX_FULL_PAGE)
                    cdp.call("Emulation.setDeviceMetricsOverride", dict(metrics, height=height), s)
                data = base64.b64decode(cdp.call(method, params, s, timeout=CAPTURE_TIMEOUT)["data"])
                Path(path).write_bytes(data)
                out[key] = len(data)
            except (CDPError, OSError) as e:
                problems.append(f"{name} failed: {e}")
    except CDPError as e:
        problems.append(f"DevTools session failed: {e}")
    finally:
        browser.close()
        if status == 2:
            print_tail(log)

    problems += [f"console error: {t}" for t in out["consoleErrors"]]
    problems += [f"exception: {t}" for t in out["exceptions"]]
    problems += [f"request leaving the file: {u}" for u in out["externalRequests"]]
    problems += [f"svg {i} '{v['label']}' has an empty box ({v['width']}x{v['height']})"
                 for i, v in enumerate(out["svgs"]) if not (v["width"] > 0 and v["height"] > 0)]
    print(json.dumps(out, indent=1))
    for p in problems:
        print("browser_check:", p.replace("\n", "\\n"), file=sys.stderr)  # one line per problem
    if problems:
        print_tail(log)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
