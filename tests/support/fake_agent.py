#!/usr/bin/env python3
"""Fake `codex` and `claude` CLIs for the Strata provider-adapter tests.

Tests symlink this file as `codex` / `claude` on PATH (or call it with a first
argument `--as-codex` / `--as-claude`). It accepts the argv shape the real
CLIs use for structured non-interactive runs, reads the prompt from stdin,
and replays a canned JSONL event stream. docs/AGENT_STREAMS.md describes the
real formats and where each field comes from.

Environment:
  FAKE_AGENT_SCENARIO   normal (default), turn-failed, error-event,
                        malformed-line, broken-json, cut, cut-kill,
                        no-final-message,
                        schema-violation, huge, hang, ignore-term,
                        nonzero-exit, empty
  FAKE_AGENT_RECORD     directory; receives argv.json, prompt.txt, cwd.txt,
                        env.json (names only), output-schema.json (codex
                        --output-schema copy) and grandchild.pid (ignore-term)
  FAKE_AGENT_ANSWER     final answer text (normally JSON) replacing the default
  FAKE_AGENT_HUGE_MB    size of the `huge` filler, in MiB (default 100)
  FAKE_AGENT_DELAY_MS   pause between events (default 0), for timing tests
  FAKE_AGENT_LENIENT=1  accept options the fake does not know (default: exit 2
                        like the real clap/commander parsers do)
"""
import json
import os
import signal
import subprocess
import sys
import time

# Die silently on a closed stdout, like a native binary would (no traceback).
signal.signal(signal.SIGPIPE, signal.SIG_DFL)

SCENARIOS = ("normal turn-failed error-event malformed-line broken-json cut cut-kill no-final-message"
             " schema-violation huge hang ignore-term nonzero-exit empty").split()
THREAD_ID = "0199a213-81c0-7800-8aa1-bbab2a035a53"
SESSION_ID = "4e4fa00e-5e28-405f-a0bd-5f1f7d57511c"
DEFAULT_ANSWER = {
    "taskOutcome": "success", "evidenceQuality": "high", "safetyOutcome": "safe",
    "evidenceIds": ["src/main.cpp:42", "docs/USAGE.md#install"],
    "clarificationRequests": 0, "reworkCount": 1,
    "measurements": [{"name": "filesRead", "value": 3}, {"name": "testsRun", "value": 12}],
}
# Wrong enum, non-integer count, extra key: each one breaks the doc-bridge schema.
BAD_ANSWER = dict(DEFAULT_ANSWER, taskOutcome="great", reworkCount=1.5, confidence=0.9)
CODEX_USAGE = {"input_tokens": 24763, "cached_input_tokens": 24448,
               "output_tokens": 1220, "reasoning_output_tokens": 640}
CLAUDE_TOOLS = ["Task", "Bash", "Glob", "Grep", "Read", "WebSearch", "mcp__docs__search"]  # the init event's list
CLAUDE_USAGE = {"input_tokens": 26, "cache_creation_input_tokens": 25422,
                "cache_read_input_tokens": 74989, "output_tokens": 562,
                "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
                "service_tier": "standard"}
CLAUDE_COST_USD = 0.154274

# Option tables (flags, then options taking a value): enough of the real CLIs'
# surface that an adapter using real flags parses, and a typo does not.
def _table(flags, valued):
    return {**dict.fromkeys(flags.split(), False), **dict.fromkeys(valued.split(), True)}


CODEX_OPTS = _table(
    "--json --experimental-json --skip-git-repo-check --ephemeral --ignore-user-config --ignore-rules"
    " --full-auto --oss --dangerously-bypass-approvals-and-sandbox",
    "-m --model -s --sandbox -c --config --output-schema -C --cd --color -o --output-last-message"
    " -p --profile -i --image --add-dir --local-provider")
CLAUDE_OPTS = _table(
    "-p --print --verbose --include-partial-messages --strict-mcp-config -c --continue"
    " --dangerously-skip-permissions --no-session-persistence",
    "--output-format --input-format --model --fallback-model --json-schema --max-turns --max-budget-usd"
    " --permission-mode --allowedTools --allowed-tools --disallowedTools --disallowed-tools --tools"
    " --system-prompt --append-system-prompt --mcp-config --add-dir --settings --setting-sources"
    " --session-id -r --resume --effort")


def fail(code, msg):
    sys.stderr.write(msg + "\n")
    sys.exit(code)


def parse(args, table, lenient):
    """Split argv into {option: [values]} and positionals (supports --opt=value and --)."""
    opts, pos, i = {}, [], 0
    while i < len(args):
        a = args[i]
        if a == "--":
            pos += args[i + 1:]
            break
        name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if a.startswith("-") and a != "-":
            if name not in table and not lenient:
                fail(2, f"error: unexpected argument '{a}' found")
            if table.get(name) and not eq:  # value in the next argument
                if i + 1 >= len(args):
                    fail(2, f"error: a value is required for '{name}'")
                i, val, eq = i + 1, args[i + 1], "="
            opts.setdefault(name, []).append(val if eq else None)
        else:
            pos.append(a)
        i += 1
    return opts, pos


def last(opts, name, default=None):
    return (opts.get(name) or [default])[-1]


class Out:
    """Writes one JSON event per line and flushes it, as the real CLIs do."""
    def __init__(self):
        self.delay = int(os.environ.get("FAKE_AGENT_DELAY_MS", "0")) / 1000.0

    def raw(self, text):
        sys.stdout.buffer.write(text.encode())
        sys.stdout.buffer.flush()
        if self.delay:
            time.sleep(self.delay)

    def ev(self, obj):
        self.raw(json.dumps(obj, separators=(",", ":")) + "\n")


def huge_filler(out, line):
    """Write ~FAKE_AGENT_HUGE_MB MiB by repeating one precomputed line in batches."""
    target = float(os.environ.get("FAKE_AGENT_HUGE_MB", "100")) * 1024 * 1024
    batch = (json.dumps(line, separators=(",", ":")) + "\n").encode() * 64
    for _ in range(max(1, int(-(-target // len(batch))))):
        sys.stdout.buffer.write(batch)
    sys.stdout.buffer.flush()


def maybe_stall(scenario, record):
    """hang: wait for a signal. ignore-term: also ignore SIGTERM, here and (SIG_IGN
    survives exec) in a `sleep 1000` grandchild left in our process group, which
    also keeps our stdout pipe open - a real agent's running command does too."""
    if scenario == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL)
        sys.stderr.write(f"fake-agent: grandchild pid {child.pid}\n")
        if record:
            with open(os.path.join(record, "grandchild.pid"), "w") as f:
                f.write(f"{child.pid}\n")
    if scenario in ("hang", "ignore-term"):
        while True:
            time.sleep(3600)


def maybe_cut(scenario, out, partial):
    """cut: die in the middle of a line with exit 1; cut-kill: the same by SIGKILL."""
    if scenario in ("cut", "cut-kill"):
        out.raw(partial)
        if scenario == "cut-kill":
            os.kill(os.getpid(), signal.SIGKILL)
        os._exit(1)


# ---------------------------------------------------------------- codex ---
def codex_item(out, kind, item):
    out.ev({"type": kind, "item": item})


def codex_run(scenario, answer_text, out, record):
    out.ev({"type": "thread.started", "thread_id": THREAD_ID})
    out.ev({"type": "turn.started"})
    maybe_stall(scenario, record)
    if scenario == "turn-failed":
        msg = "unexpected status 401 Unauthorized: Incorrect API key provided"
        out.ev({"type": "error", "message": f"Reconnecting... 1/5 ({msg})"})
        out.ev({"type": "error", "message": msg})
        out.ev({"type": "turn.failed", "error": {"message": msg}})
        return 1
    if scenario == "error-event":
        out.ev({"type": "error", "message": "stream disconnected before completion: fake"})
        return 1
    codex_item(out, "item.completed", {"id": "item_0", "type": "reasoning",
                                       "text": "**Looking for the entry point**"})
    cmds = [("item_1", "/bin/bash -lc ls", "README.md\nsrc\ntests\n", 0, "completed"),
            ("item_2", "/bin/bash -lc 'grep -rn TODO src'", "", 1, "failed")]
    for n, (iid, cmd, output, code, status) in enumerate(cmds):
        codex_item(out, "item.started", {"id": iid, "type": "command_execution", "command": cmd,
                                         "aggregated_output": "", "exit_code": None,
                                         "status": "in_progress"})
        if n == 1:
            maybe_cut(scenario, out, '{"type":"item.completed","item":{"id":"item_2","type":"comm')
        codex_item(out, "item.completed", {"id": iid, "type": "command_execution", "command": cmd,
                                           "aggregated_output": output, "exit_code": code,
                                           "status": status})
        if scenario == "malformed-line" and n == 0:
            out.raw("[SandboxDebug] this line is not JSON {\n")
        if scenario == "broken-json" and n == 0:
            out.raw('{"type":"item.completed","item":{"id":"item_9",\n')
    mcp = {"id": "item_3", "type": "mcp_tool_call", "server": "docs", "tool": "search",
           "arguments": {"query": "install"}, "result": None, "error": None, "status": "in_progress"}
    codex_item(out, "item.started", mcp)
    codex_item(out, "item.completed", dict(mcp, status="completed", result={
        "content": [{"type": "text", "text": "docs/USAGE.md#install"}], "structured_content": None}))
    # Real codex serialises web_search items with the key "id" twice (outer item
    # id, then the provider's search id) - kept verbatim on purpose.
    for kind, query, action in (("item.started", "", '{"type":"other"}'),
                                ("item.completed", "strata install",
                                 '{"type":"search","query":"strata install"}')):
        out.raw('{"type":"%s","item":{"id":"item_4","type":"web_search","id":"ws_1",'
                '"query":%s,"action":%s}}\n' % (kind, json.dumps(query), action))
    if scenario == "huge":
        huge_filler(out, {"type": "item.updated", "item": {
            "id": "item_5", "type": "command_execution", "command": "/bin/bash -lc 'cat big.log'",
            "aggregated_output": "x" * 4000 + "\n", "exit_code": None, "status": "in_progress"}})
    if scenario != "no-final-message":
        codex_item(out, "item.completed", {"id": "item_6", "type": "agent_message",
                                           "text": answer_text})
    out.ev({"type": "turn.completed", "usage": CODEX_USAGE})
    return 3 if scenario == "nonzero-exit" else 0


# --------------------------------------------------------------- claude ---
def claude_run(scenario, answer_text, answer_obj, out, record, model, schema_given):
    base = {"session_id": SESSION_ID, "parent_tool_use_id": None}
    step = [0]

    # One content block per line; lines from the same API message repeat its id and
    # usage, so summing per-line usage overcounts (the result event has the totals).
    def assistant(block, msg_id="msg_01", error=None):
        step[0] += 1
        ev = dict(base, type="assistant", uuid=f"00000000-0000-4000-8000-{step[0]:012d}", message={
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 4, "cache_creation_input_tokens": 1200,
                      "cache_read_input_tokens": 14741, "output_tokens": 70,
                      "service_tier": "standard"}})
        if error:
            ev["error"] = error
        out.ev(ev)

    def tool(tid, name, inp, result, is_error=False, msg_id="msg_01"):
        assistant({"type": "tool_use", "id": tid, "name": name, "input": inp}, msg_id)
        out.ev(dict(base, type="user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": result, "is_error": is_error}]}))

    def result(subtype, is_error, text, **extra):
        ev = dict(type="result", subtype=subtype, is_error=is_error, duration_ms=5210,
                  duration_api_ms=4870, num_turns=6, result=text, session_id=SESSION_ID,
                  total_cost_usd=CLAUDE_COST_USD, usage=CLAUDE_USAGE, permission_denials=[],
                  modelUsage={model: {"inputTokens": 26, "outputTokens": 562,
                                      "cacheReadInputTokens": 74989,
                                      "cacheCreationInputTokens": 25422,
                                      "costUSD": CLAUDE_COST_USD}})
        ev.update(extra)
        out.ev(ev)

    tools = CLAUDE_TOOLS
    out.ev({"type": "system", "subtype": "init", "cwd": os.getcwd(), "session_id": SESSION_ID,
            "tools": tools + (["StructuredOutput"] if schema_given else []),
            "mcp_servers": [{"name": "docs", "status": "connected"}], "model": model,
            "permissionMode": "default", "slash_commands": [], "apiKeySource": "none",
            "claude_code_version": "2.0.0-fake", "output_style": "default",
            "uuid": "00000000-0000-4000-8000-000000000000"})
    maybe_stall(scenario, record)
    if scenario == "error-event":  # API failure surfaced on the assistant message
        assistant({"type": "text", "text": "API Error: 429 rate_limit_error"}, error="rate_limit")
        result("success", True, "API Error: 429 rate_limit_error")
        return 1
    assistant({"type": "thinking", "thinking": "Find the entry point first.", "signature": "c2ln"})
    assistant({"type": "text", "text": "I'll look at the repository layout."})
    tool("toolu_01", "Bash", {"command": "ls"}, "README.md\nsrc\ntests")
    if scenario == "malformed-line":
        out.raw("[SandboxDebug] this line is not JSON {\n")
    if scenario == "broken-json":
        out.raw('{"type":"assistant","message":{"id":"msg_01",\n')
    maybe_cut(scenario, out, '{"type":"assistant","message":{"id":"msg_02","type":"mess')
    tool("toolu_02", "Grep", {"pattern": "TODO", "path": "src"}, "No matches found", True)
    tool("toolu_03", "mcp__docs__search", {"query": "install"},
         [{"type": "text", "text": "docs/USAGE.md#install"}], msg_id="msg_02")
    tool("toolu_04", "WebSearch", {"query": "strata install"}, "1 result", msg_id="msg_02")
    if scenario == "huge":
        huge_filler(out, dict(base, type="assistant", message={
            "id": "msg_03", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": "x" * 4000}], "stop_reason": None,
            "usage": {"input_tokens": 1, "output_tokens": 1000}}))
    if scenario == "turn-failed":
        result("error_during_execution", True, "", errors=["fake: tool loop aborted"])
        return 1
    if scenario == "no-final-message":
        return 0  # the stream simply ends: no result event
    if schema_given and answer_obj is not None:
        tool("toolu_05", "StructuredOutput", answer_obj,
             "Structured output provided successfully", msg_id="msg_04")
        result("success", False, answer_text, structured_output=answer_obj)
    else:
        assistant({"type": "text", "text": answer_text}, msg_id="msg_04")
        result("success", False, answer_text)
    return 3 if scenario == "nonzero-exit" else 0


# ----------------------------------------------------------------- main ---
def record_inputs(record, info, prompt, schema):
    """What the agent received, for the tests to check (env: names only)."""
    os.makedirs(record, exist_ok=True)
    files = {"cwd.txt": os.getcwd().encode(), "prompt.txt": prompt,
             "env.json": json.dumps(sorted(os.environ)).encode()}
    if schema:  # codex reads the schema file while running: is it still there?
        info["output_schema_exists"] = os.path.isfile(schema)
        if info["output_schema_exists"]:
            with open(schema, "rb") as f:
                files["output-schema.json"] = f.read()
    files["argv.json"] = json.dumps(info, indent=1).encode()
    for name, data in files.items():
        with open(os.path.join(record, name), "wb") as f:
            f.write(data)


def main():
    args = sys.argv[1:]
    base = os.path.basename(sys.argv[0])
    if args and args[0] in ("--as-codex", "--as-claude"):
        flavor, args = args[0][5:], args[1:]
    elif base.startswith(("codex", "claude")):
        flavor = "codex" if base.startswith("codex") else "claude"
    else:
        fail(2, "fake_agent: run as codex/claude or pass --as-codex/--as-claude first")
    scenario = os.environ.get("FAKE_AGENT_SCENARIO", "normal")
    if scenario not in SCENARIOS:
        fail(2, f"fake_agent: unknown FAKE_AGENT_SCENARIO '{scenario}'")
    lenient = os.environ.get("FAKE_AGENT_LENIENT") == "1"
    if flavor == "codex":
        if not args or args[0] != "exec":
            fail(2, "fake_agent: only `codex exec ...` is emulated")
        opts, pos = parse(args[1:], CODEX_OPTS, lenient)
        if "--json" not in opts and "--experimental-json" not in opts:
            fail(2, "fake_agent: codex exec without --json is not emulated")
        from_stdin = not pos or pos[0] == "-"  # as `codex exec`: no prompt or `-`
    else:
        opts, pos = parse(args, CLAUDE_OPTS, lenient)
        if "-p" not in opts and "--print" not in opts:
            fail(2, "fake_agent: only `claude -p` (print mode) is emulated")
        if last(opts, "--output-format") != "stream-json":
            fail(2, "fake_agent: only --output-format stream-json is emulated")
        if "--verbose" not in opts:  # the real CLI refuses this combination too
            fail(1, "Error: When using --print, --output-format=stream-json requires --verbose")
        from_stdin = not pos
    prompt = sys.stdin.buffer.read() if from_stdin else pos[0].encode()
    record = os.environ.get("FAKE_AGENT_RECORD")
    if record:
        record_inputs(record, {"flavor": flavor, "argv": sys.argv, "options": opts,
                               "positionals": pos, "prompt_from_stdin": from_stdin,
                               "scenario": scenario}, prompt, last(opts, "--output-schema"))
    # Real CLIs log to stderr; adapters must drain it without mixing it into events.
    sys.stderr.write(f"fake-agent {flavor}: scenario={scenario} prompt_bytes={len(prompt)}\n")
    sys.stderr.flush()
    if scenario == "empty":
        return 0
    answer_text = os.environ.get("FAKE_AGENT_ANSWER")
    if answer_text is None:
        answer_text = json.dumps(BAD_ANSWER if scenario == "schema-violation" else DEFAULT_ANSWER)
    try:
        answer_obj = json.loads(answer_text)
    except ValueError:
        answer_obj = None
    if flavor == "codex":
        code = codex_run(scenario, answer_text, Out(), record)
    else:
        model = last(opts, "--model", default="claude-sonnet-4-5-20250929")
        code = claude_run(scenario, answer_text, answer_obj, Out(), record, model,
                          "--json-schema" in opts)
    sys.stderr.write(f"fake-agent {flavor}: done, exit {code}\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
