#!/usr/bin/env python3
"""Drive `strata view` in headless Chromium as a user would, while a study runs.

    view_browser.py URL --expect N [--timeout S]
    view_browser.py URL --screenshot OUT.png     (docs/view-example.png: the page, its metrics opened)

Through the DevTools protocol over --remote-debugging-pipe (browser_check.Pipe, stdlib only):
opens URL once and never reloads it; waits until the first study's observation count, shown in
its overview, grows to N by the live stream alone (the page's marker set at the start survives,
one navigation entry); then filters the table by an arm, sorts it by tokens both ways, pages it,
and opens a row's drill-down with its trajectory. Prints one JSON object of what it saw. Exit 0
when every step did what it should, no console error or exception (a Content-Security-Policy
violation is one), and no request went anywhere but the server; 1 otherwise (a line per problem
on stderr); 2 when Chromium could not be started.
"""
import argparse
import base64
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_check import CDPError, Chromium  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--expect", type=int)
    ap.add_argument("--screenshot")
    ap.add_argument("--go-file", help="made once the page has read its first count (the study's providers wait for it)")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    origin = "/".join(args.url.split("/")[:3])
    st = {"session": None, "loaded": 0}
    seen = {"requests": [], "external": [], "consoleErrors": [], "exceptions": [], "steps": {}}
    problems = []

    def on_event(msg):
        if msg.get("sessionId") != st["session"]:
            return
        m, p = msg.get("method"), msg.get("params", {})
        if m == "Page.loadEventFired":
            st["loaded"] += 1
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            seen["consoleErrors"].append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error" and p["entry"].get("source") in ("security", "violation"):
            seen["consoleErrors"].append(p["entry"].get("text", ""))
        elif m == "Runtime.exceptionThrown":
            seen["exceptions"].append(((p.get("exceptionDetails") or {}).get("exception") or {}).get("description", "exception"))
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            seen["requests"].append(url)
            if not (url.startswith(origin + "/") or url == origin):
                seen["external"].append(url)

    browser = Chromium(1400, 900, on_event)
    try:
        browser.start()
    except (OSError, CDPError) as e:
        browser.close()
        print(f"view_browser: cannot start Chromium: {e}", file=sys.stderr)
        return 2
    cdp = browser.cdp
    st["session"] = browser.session

    def evaluate(expression):
        res = cdp.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, st["session"])
        if "exceptionDetails" in res:
            raise CDPError(f"evaluating {expression[:60]}: {res['exceptionDetails'].get('text')}")
        return res.get("result", {}).get("value")

    def wait_for(expression, what, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            value = evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise CDPError(f"timed out waiting for {what}")
            cdp.pump(0.2)

    count_js = "Number((document.querySelector('#overview [data-card=observations] b')||{}).textContent||'-1')"
    rows_js = "Array.from(document.querySelectorAll('#observations tbody tr')).map(tr => Array.from(tr.cells).map(td => td.textContent))"
    status = 1
    try:
        for domain in ("Page", "Runtime", "Log", "Network"):
            cdp.call(f"{domain}.enable", session=st["session"])
        cdp.call("Page.navigate", {"url": args.url}, st["session"])
        cdp.wait(lambda: st["loaded"] >= 1, 60, "the page's load")
        wait_for("document.body.dataset.ready === 'true' && document.querySelector('#overview [data-card=observations]') !== null", "the first study")
        if args.screenshot:
            evaluate("document.getElementById('metrics-panel').open = true")
            wait_for("document.querySelector('#metrics table') !== null", "the metrics")
            cdp.call("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False}, st["session"])
            Path(args.screenshot).write_bytes(base64.b64decode(cdp.call("Page.captureScreenshot", {"format": "png"}, st["session"])["data"]))
            return 0
        evaluate("window.__strataMarker = 'kept'")
        first = evaluate(count_js)
        seen["steps"]["firstCount"] = first
        if args.go_file:
            Path(args.go_file).touch()
        if first >= args.expect:
            problems.append(f"the study was complete ({first}) before the page could see it grow")
        deadline = time.monotonic() + args.timeout
        counts = [first]
        running_seen, budget_seen = 0, ""
        running_js = "document.querySelectorAll('#running:not([hidden]) tbody tr').length"
        budget_js = "(document.querySelector('#overview [data-card=budget] b') || {}).textContent || ''"
        while time.monotonic() < deadline:
            c = evaluate(count_js)
            if c != counts[-1]:
                counts.append(c)
            running_seen = max(running_seen, evaluate(running_js))
            budget_seen = evaluate(budget_js) or budget_seen
            if c >= args.expect:
                break
            cdp.pump(0.2)
        seen["steps"]["counts"] = counts
        seen["steps"]["runningSeen"] = running_seen
        seen["steps"]["budget"] = budget_seen
        # The run's end: its live state removed, the page says so.
        wait_for("document.getElementById('run-state').textContent === 'Not running' && document.getElementById('running').hidden", "the run's end on the page", timeout=60)
        seen["steps"]["liveUpdates"] = evaluate("Number(document.body.dataset.liveUpdates || 0)")
        if counts[-1] != args.expect:
            problems.append(f"the count reached {counts[-1]}, not {args.expect}")
        if len(counts) < 2:
            problems.append("the count never changed on the page")
        if evaluate("window.__strataMarker") != "kept" or st["loaded"] != 1 or evaluate("performance.getEntriesByType('navigation').length") != 1:
            problems.append("the page was reloaded")
        wait_for(f"document.querySelectorAll('#observations tbody tr').length === {min(args.expect, 100)}", "the table's rows after the last update")
        # Filter by the second arm.
        arm = evaluate("document.querySelector('#filters select[name=arm]').options[2].value")
        evaluate(f"(() => {{ const s = document.querySelector('#filters select[name=arm]'); s.value = {json.dumps(arm)}; s.dispatchEvent(new Event('change', {{bubbles: true}})); }})()")
        wait_for(f"(() => {{ const r = {rows_js}; return r.length > 0 && r.every(c => c[2] === {json.dumps(arm)}); }})()", "the arm filter")
        filtered = evaluate(rows_js)
        seen["steps"]["filter"] = {"arm": arm, "rows": len(filtered)}
        # Sort by tokens, descending (two clicks), then ascending.
        tokens = lambda rows: [int(r[9].replace(",", "")) for r in rows]  # noqa: E731
        evaluate("document.querySelector('#observations th[data-sort=tokens]').click()")
        wait_for("document.querySelector('#observations th[data-sort=tokens]').classList.contains('sorted-asc')", "the ascending sort")
        cdp.pump(0.5)
        up = tokens(evaluate(rows_js))
        evaluate("document.querySelector('#observations th[data-sort=tokens]').click()")
        wait_for("document.querySelector('#observations th[data-sort=tokens]').classList.contains('sorted-desc')", "the descending sort")
        cdp.pump(0.5)
        down = tokens(evaluate(rows_js))
        seen["steps"]["sort"] = {"ascending": up, "descending": down}
        if up != sorted(up) or down != sorted(down, reverse=True) or sorted(up) != sorted(down) or len(up) != len(filtered):
            problems.append(f"the sort by tokens is wrong: {up} then {down}")
        # Drill down into the first row.
        key = evaluate("document.querySelector('#observations tbody tr').dataset.index")
        evaluate("document.querySelector('#observations tbody tr').click()")
        wait_for("!document.getElementById('detail').hidden && document.getElementById('detail-observation') !== null", "the drill-down")
        detail = evaluate("""(() => ({
            index: document.getElementById('detail').dataset.index,
            title: document.getElementById('detail-title').textContent,
            steps: Array.from(document.querySelectorAll('#detail-trajectory .step')).map(s => s.textContent),
            adjudication: !!document.getElementById('detail-adjudication'),
            observation: JSON.parse(document.getElementById('detail-observation').textContent),
            injected: document.querySelectorAll('#detail img, #detail script').length,
        }))()""")
        seen["steps"]["detail"] = {k: v for k, v in detail.items() if k != "observation"}
        seen["steps"]["detail"]["observationTask"] = detail["observation"]["task"]["taskId"]
        if detail["index"] != key:
            problems.append("the drill-down shows another row")
        if len(detail["steps"]) < 2 or not any("TRAJECTORY-MARK" in s for s in detail["steps"]):
            problems.append(f"the drill-down lacks the trajectory's steps: {detail['steps']}")
        if detail["injected"]:
            problems.append("markup from the trajectory was made into elements")
        if not detail["adjudication"]:
            problems.append("the drill-down lacks the adjudication")
        # Page on: the filter cleared, a page of the table at a time.
        evaluate("(() => { const s = document.querySelector('#filters select[name=arm]'); s.value = ''; s.dispatchEvent(new Event('change', {bubbles: true})); })()")
        wait_for(f"document.querySelectorAll('#observations tbody tr').length === {min(args.expect, 100)}", "the cleared filter")
        cdp.pump(1.0)
        if seen["external"]:
            problems.append(f"requests left the server: {seen['external']}")
        if seen["consoleErrors"] or seen["exceptions"]:
            problems.append(f"console errors {seen['consoleErrors']} exceptions {seen['exceptions']}")
        status = 1 if problems else 0
    except CDPError as e:
        problems.append(str(e))
        status = 1
    finally:
        browser.close()
    seen["requests"] = sorted(set(r.split("?")[0] for r in seen["requests"]))
    print(json.dumps(seen))
    for p in problems:
        print(f"view_browser: {p}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
