#!/usr/bin/env bash
# strata view (issue 46, docs/VIEWER.md): the live, read-only web viewer, against a study that
# runs while it is watched.
#   - bad input: a missing path, a symbolic link, a file that is not a ledger, a short token, a
#     port in use (exit 2, one line naming it, nothing written);
#   - in headless Chromium (tests/support/view_browser.py, the DevTools protocol): the page opened
#     while `strata run` records the example study's 16 executions, each observation appearing
#     without a reload; the table filtered by arm, sorted by tokens, a row's drill-down with its
#     kept trajectory (whose message carries markup, shown as text); no request but to the server,
#     no console error (a Content-Security-Policy violation would be one);
#   - the API against the ledger: counts, filters, sort, paging, an observation, metrics, report;
#   - hostile requests (tests/support/view_probe.py): traversal in every encoding, oversized and
#     malformed requests, a foreign Host, 1000 idle connections, a slow client, floods; a symbolic
#     link to a ledger and to a trajectory outside, and a FIFO, among the files: never read;
#   - a non-loopback bind: a token made and printed, every request without it refused;
#   - read-only: every file under the watched directory byte-identical after all of it.
# Usage: view_test.sh <strata binary>
STRATA=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
SUPPORT=$(realpath "$(dirname "$0")/../support")
EXAMPLE_PROVIDER=$(dirname "$STRATA")/strata-example-provider
VIEWER_PID=

stop_viewer() {
  [ -n "$VIEWER_PID" ] || return 0
  kill -TERM "$VIEWER_PID" 2>/dev/null
  wait "$VIEWER_PID"
  VIEWER_CODE=$?
  VIEWER_PID=
}
trap 'stop_viewer; [ -n "${RUN_PID:-}" ] && kill "$RUN_PID" 2>/dev/null; rm -rf "$WORK"' EXIT

# start_viewer <log> <args...>: strata view on a free port; URL is what it printed.
start_viewer() {
  local log=$1
  shift
  "$STRATA" view --port 0 "$@" >"$log" 2>&1 &
  VIEWER_PID=$!
  for _ in $(seq 100); do
    URL=$(grep -o 'http://[^ ]*' "$log" | head -1)
    [ -n "$URL" ] && break
    sleep 0.1
  done
  [ -n "$URL" ] || fail "strata view printed no address: $(cat "$log")"
  PORT=$(echo "$URL" | sed -E 's#http://[^:]+:([0-9]+)/.*#\1#')
}

# The example study with a provider that takes about 0.4 s an execution and keeps a trajectory
# whose agent message carries markup.
cat >"$WORK/slow-provider" <<SH
#!/usr/bin/env bash
response=\$("$EXAMPLE_PROVIDER" "\$@")
# Held until the page has read its first count (view_browser.py --go-file), at most 60 s: the page
# sees the study grow however slowly Chromium starts.
for _ in \$(seq 600); do [ -e "$WORK/go" ] && break; sleep 0.1; done
sleep 0.4
if [ -n "\${STRATA_TRAJECTORY_FILE:-}" ]; then
  printf '{"schema_version":"ATIF-v1.7","session_id":"%s","agent":{"name":"scripted","version":"1"},"steps":[{"step_id":1,"source":"user","message":"the request"},{"step_id":2,"source":"agent","message":"TRAJECTORY-MARK <img src=x onerror=alert(1)><script>alert(2)</script>","tool_calls":[{"tool_call_id":"c1","function_name":"Read","arguments":{"path":"main.cpp"}}],"observation":{"results":[{"source_call_id":"c1","content":"int main()"}]}}],"final_metrics":{"total_steps":2}}\n' "\$DOC_BRIDGE_STUDY_SESSION_ID" >"\$STRATA_TRAJECTORY_FILE"
fi
printf '%s\n' "\$response"
SH
chmod +x "$WORK/slow-provider"
make_example_study "$WORK/slow-provider" one
STUDY=$WORK/study
mkdir -p "$STUDY" "$WORK/outside"
cp "$WORK/plan-one.json" "$WORK/suite.json" "$STUDY/"

# Bad input: exit 2, one line naming the path or flag, nothing written.
bad_input "a missing path" "no such file or directory" view "$WORK/missing"
ln -s "$STUDY" "$WORK/link-to-study"
bad_input "a symbolic link" "a symbolic link" view "$WORK/link-to-study"
bad_input "a file that is not a ledger" "not a ledger" view "$WORK/suite.json"
bad_input "a short token" "--token" view "$STUDY" --token short
python3 -c 'import socket,time,sys; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' >"$WORK/busy-port" &
BUSY_PID=$!
for _ in $(seq 50); do [ -s "$WORK/busy-port" ] && break; sleep 0.1; done
bad_input "a port in use" "cannot listen" view "$STUDY" --port "$(cat "$WORK/busy-port")"
kill "$BUSY_PID"
expect_true "[ -z \"\$(ls -A "$STUDY" | grep -v -e plan-one.json -e suite.json)\" ]" "bad input wrote nothing beside the study"

# The viewer on the study's directory before its run starts; then the run, watched in Chromium.
start_viewer "$WORK/viewer.log" "$STUDY"
expect_true "grep -q '0 studies found' '$WORK/viewer.log'" "no study yet: $(head -1 "$WORK/viewer.log")"
"$STRATA" run "$WORK/plan-one.json" "$WORK/suite.json" --providers "$WORK/providers.json" --repositories "$WORK/repos.json" \
  --ledger "$STUDY/ledger.json" --jobs 1 --keep-trajectories "$STUDY/trajectories" --max-cost-usd 5 >"$WORK/run.out" 2>&1 &
RUN_PID=$!
python3 "$SUPPORT/view_browser.py" "$URL" --expect 16 --go-file "$WORK/go" >"$WORK/browser.json" 2>"$WORK/browser.err"
browser_code=$?
wait "$RUN_PID"
run_code=$?
RUN_PID=
expect_true "[ $run_code = 0 ]" "the watched run completed ($(tail -3 "$WORK/run.out"))"
echo "  browser: $(head -c 600 "$WORK/browser.json")"
expect_true "[ $browser_code = 0 ]" "in Chromium: $(cat "$WORK/browser.err") $(head -c 1500 "$WORK/browser.json")"
python3 - "$WORK/browser.json" "$URL" <<'PY' || fail "what the browser saw: $(head -c 1500 "$WORK/browser.json")"
import json, sys
seen, url = json.load(open(sys.argv[1])), sys.argv[2]
steps = seen["steps"]
assert steps["firstCount"] < 16 and steps["counts"][-1] == 16, steps["counts"]
assert steps["liveUpdates"] >= 2, steps["liveUpdates"]  # more than one update pushed while the page stayed
assert steps["runningSeen"] == 1, steps  # --jobs 1: the execution running now, from <ledger>.live
assert "of $5.0000" in steps["budget"], steps["budget"]  # the budget's limit beside what is spent
assert steps["filter"]["rows"] == 4, steps["filter"]    # one arm of the example study: 4 tasks
assert len(steps["detail"]["steps"]) == 2 and "<img" in steps["detail"]["steps"][1], steps["detail"]
origin = "/".join(url.split("/")[:3])
assert all(r.startswith(origin + "/") for r in seen["requests"]), seen["requests"]
assert origin + "/api/events" in seen["requests"] and origin + "/app.js" in seen["requests"], seen["requests"]
PY
checks=$((checks + 6))
expect_file_absent "$STUDY/ledger.json.live" "the run removed its live state at its end"
# A live state a killed run left (its pid gone): the API says nothing runs.
python3 -c 'import json,sys; json.dump({"format": "strata-run-live-v1", "runId": "append-one", "pid": 4194000, "running": [], "budget": None}, open(sys.argv[1], "w"))' "$STUDY/ledger.json.live"
expect_true "[ \"\$(curl -s http://127.0.0.1:$PORT/api/studies/0 | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"live\"])')\" = None ]" "a killed run's live state is not a running run"
rm "$STUDY/ledger.json.live"

# The API against the ledger, now complete and folded.
api() { curl -s --max-time 30 "http://127.0.0.1:$PORT$1"; }
python3 - "$PORT" "$STUDY/ledger.json" <<'PY' || fail "the API"
import json, sys, urllib.request
port, ledger_path = sys.argv[1], sys.argv[2]
get = lambda p: json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}{p}", timeout=30))
studies = get("/api/studies")["studies"]
assert [s["name"] for s in studies] == ["ledger.json"], studies
s = studies[0]
ledger = json.load(open(ledger_path))["observations"]
assert s["summary"]["observations"] == 16 == len(ledger)
assert s["summary"]["inputTokens"] == sum(o["execution"]["inputTokens"] for o in ledger)
assert s["progress"] == [dict(runId="append-one", recorded=16, planned=16, planHash=ledger[0]["planHash"],
                              taskSuiteHash=s["progress"][0]["taskSuiteHash"])], s["progress"]
page = get("/api/studies/0/observations?limit=5&offset=10")
assert page["total"] == 16 and [r["index"] for r in page["rows"]] == [10, 11, 12, 13, 14], page
arm = s["summary"]["arms"][0]
rows = get("/api/studies/0/observations?arm=" + urllib.parse.quote(arm) + "&sort=duration&order=desc")["rows"]
assert len(rows) == 4 and all(r["arm"] == arm for r in rows), rows
assert [r["durationMs"] for r in rows] == sorted((r["durationMs"] for r in rows), reverse=True)
one = get("/api/studies/0/observations/7")
assert one["observation"]["contentHash"] == one["row"]["contentHash"] in {o["contentHash"] for o in ledger}
assert "TRAJECTORY-MARK" in one["files"]["trajectory"]["value"]["steps"][1]["message"], one["files"]
metrics = get("/api/studies/0/metrics")["metrics"]
assert metrics["observations"] == 16 and len(metrics["arms"]) == 4, metrics.keys()
report = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/studies/0/report", timeout=30)
assert "sandbox" in report.headers["Content-Security-Policy"] and b"<svg" in report.read()
for bad in ["/api/studies/0/observations?limit=x", "/api/studies/0/observations/16", "/api/studies/1", "/nothing"]:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}{bad}", timeout=30)
        raise AssertionError(f"{bad} answered 200")
    except urllib.error.HTTPError as e:
        assert e.code in (400, 404), (bad, e.code)
page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30)
csp = page.headers["Content-Security-Policy"]
html = page.read().decode()
assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe-inline" not in csp, csp
import re
assert all("src=" in tag for tag in re.findall(r"<script[^>]*>", html)) and "style=" not in html and "<style" not in html
PY
checks=$((checks + 1))

# Symbolic links and a FIFO among the files: never listed, never read, never a hang.
cp "$STUDY/ledger.json" "$WORK/outside/other-ledger.json"
ln -s "$WORK/outside/other-ledger.json" "$STUDY/linked-ledger.json"
ln -s "$WORK/outside" "$STUDY/linked-dir"
mkfifo "$STUDY/fifo.json"
key_stem=$(api /api/studies/0/observations/3 | python3 -c 'import json,sys; print(json.load(sys.stdin)["row"]["executionKey"])')
echo "secret outside" >"$WORK/outside/secret.patch"
ln -s "$WORK/outside/secret.patch" "$STUDY/trajectories/$key_stem.patch"
sleep 1  # a refresh or more
studies=$(api /api/studies)
expect_true "[ \"\$(echo '$studies' | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"studies\"]))')\" = 1 ]" "links and a FIFO are not studies: $studies"
expect_true "! api /api/studies/0/observations/3 | grep -q 'secret outside'" "a linked patch is not read"

python3 "$SUPPORT/view_probe.py" 127.0.0.1 "$PORT" >"$WORK/probe.out" 2>&1
probe_code=$?
sed 's/^/  probe: /' "$WORK/probe.out"
expect_true "[ $probe_code = 0 ]" "hostile requests: $(grep -v '^ok' "$WORK/probe.out" | head -20)"
expect_true "kill -0 $VIEWER_PID" "the viewer is still running after the hostile requests"

# Read-only: everything under the study byte-identical after all requests (drill-downs, metrics, report).
snapshot() { (cd "$STUDY" && find . -xdev \( -type f -o -type l -o -type p \) -printf '%p %y %s %T@\n' | sort && find . -type f -exec sha256sum {} + | sort); }
snapshot >"$WORK/before"
for i in $(seq 0 15); do api "/api/studies/0/observations/$i" >/dev/null; done
api /api/studies/0/metrics >/dev/null
api /api/studies/0/report >/dev/null
snapshot >"$WORK/after"
expect_true "cmp -s '$WORK/before' '$WORK/after'" "the viewer wrote under the study: $(diff "$WORK/before" "$WORK/after" | head -5)"
stop_viewer
expect_true "[ $VIEWER_CODE = 0 ]" "SIGTERM stops the viewer with 0 (got $VIEWER_CODE)"
expect_true "! grep -qi 'error\\|exception' '$WORK/viewer.log'" "the viewer's log: $(cat "$WORK/viewer.log")"

# A non-loopback bind: a token made and printed; without it every request is refused.
start_viewer "$WORK/open.log" "$STUDY" --bind 0.0.0.0
token=$(grep -o 'token=[0-9a-f]*' "$WORK/open.log" | head -1 | cut -d= -f2)
expect_true "[ \${#token} = 48 ]" "a 48-hex token printed: $(cat "$WORK/open.log")"
expect_true "[ \"\$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/api/studies)\" = 401 ]" "no token: 401"
expect_true "[ \"\$(curl -s -o /dev/null -w '%{http_code}' 'http://127.0.0.1:$PORT/api/studies?token=${token}0')\" = 401 ]" "a wrong token: 401"
curl -s -D "$WORK/headers" -o /dev/null "http://127.0.0.1:$PORT/?token=$token"
expect_true "grep -qi '^set-cookie: strata_view_token=$token; HttpOnly; SameSite=Strict' '$WORK/headers'" "the token becomes a cookie: $(cat "$WORK/headers")"
expect_true "[ \"\$(curl -s -o /dev/null -w '%{http_code}' -H 'Cookie: strata_view_token=$token' http://127.0.0.1:$PORT/api/studies)\" = 200 ]" "the cookie lets the page in"
stop_viewer
STRATA_VIEW_TOKEN=given-token-0123456789 "$STRATA" view --port 0 "$STUDY" >"$WORK/given.log" 2>&1 &
VIEWER_PID=$!
for _ in $(seq 100); do grep -q http "$WORK/given.log" && break; sleep 0.1; done
expect_true "grep -q 'token=given-token-0123456789' '$WORK/given.log'" "STRATA_VIEW_TOKEN is the token: $(cat "$WORK/given.log")"
stop_viewer

finish
