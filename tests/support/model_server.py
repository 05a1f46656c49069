#!/usr/bin/env python3
"""Scripted model server: a loopback stand-in for the model APIs agent CLIs call.

Python 3 standard library only. It lets the real agent CLIs (codex, claude, ...)
run end to end with no network: every "model" answer comes from a script.

    python3 tests/support/model_server.py --script SCRIPT.json \
        --log REQUESTS.jsonl --port-file PORT_FILE [--turn-log] [--verbose]

binds 127.0.0.1 on a free port, writes the port number to PORT_FILE atomically
(temporary file + rename) once it listens, serves (a thread per connection)
until SIGTERM or SIGINT, then exits 0.

Script (JSON):

    {"turns": [TURN, ...], "after": TURN, "side": TURN}

Turns are handed out in order, shared by every protocol. "rules" (optional,
[{"contains": TEXT, "turn": TURN}, ...]) come first: a main request whose body
holds TEXT gets that rule's TURN and consumes nothing (one server for agents
with different tasks at once, e.g. a study's providers and its judge). When the script is
exhausted every further main request gets "after" (default {"text": "{}"}).
A TURN is one of

    {"tool_calls": [{"name": N, "arguments": {...}, "id": "optional"}], "usage": U}
    {"text": "final message text", "usage": U}
    {"fail": {"status": 500}}
    {"fail": {"status": 429, "retry_after": 1}}     (Retry-After header, seconds)
    {"fail": {"cut_after_events": N}}               (N SSE events, then the
                                                     connection is cut; the
                                                     turn's "text"/"tool_calls",
                                                     if any, are what is streamed)
    {"fail": {"hang": true}}                        (never answers)
    {"fail": {"hang": true, "after_events": N}}     (answers 200, streams N SSE
                                                     events, then stalls with the
                                                     connection open)

Any turn may carry "delay_ms": D (next_turn sleeps D ms before returning it,
for timing and ordering tests), and a "fail" turn with "repeat": K (in the
turn or in "fail") answers the next K main requests that way before the script
moves on. U = {"input_tokens",
"cached_tokens", "output_tokens", "reasoning_tokens", "cache_creation_tokens"}
(all optional; see usage_of for the defaults). "side" (optional) is what
ctx.next_turn(..., side=True) returns; it never consumes a turn.

Request log (JSON lines, flushed per line): every request, before it is
dispatched, as {"seq", "time", "method", "path", "query", "headers", "body"}:
"path" without the query string, "query" a dict (values of key/api_key-like
parameters redacted), "headers" lower-case names with the values of
authorization / api-key / cookie headers replaced by "<redacted>", "body" the
parsed JSON (or null; then "body_text" holds the body when it is UTF-8, else
"body_bytes" its length). A gzip/deflate Content-Encoding is undone first.
With --turn-log, each script turn handed out is logged too, as
{"seq", "turn": index or "after" or "side", "protocol", "side"} (no "method").

Protocol modules: every file model_server_*.py beside this one is imported;
each exposes

    PROTOCOL = "name"                      (optional, default: from the file name)
    ROUTES = [(method, path_regex, handler), ...]

method is "GET", "POST", ... or "*"; path_regex is matched with re.search
against the path without its query string (anchor it with ^...$ for an exact
match). Modules are tried in file-name order, routes in list order; the first
match wins. Unmatched requests are logged and answered 404 JSON.
handler(ctx, req) answers the request:

    req.method, req.path, req.query (dict, first value of each name),
    req.headers (dict, lower-case names), req.body (bytes), req.json (or None),
    req.seq (the request's number in the log)

    ctx.script                     the script dict
    ctx.next_turn(protocol, req, side=False)
                                   the next TURN (a dict; do not mutate)
    ctx.log(obj)                   one more JSON line in the request log
    ctx.send_json(req, status, obj, headers=None)
    ctx.start_sse(req, headers=None)     200, text/event-stream, chunked
    ctx.sse_event(req, data_obj, event=None)
                                   "event: X\\ndata: {json}\\n\\n" (a str data_obj
                                   is sent as is), flushed
    ctx.sse_raw(req, text)         raw text into the stream, flushed
    ctx.end_sse(req)               the last chunk; the connection may be reused
    ctx.cut(req)                   closes the connection at once (no last
                                   chunk, TCP reset): raises ConnectionCut, which
                                   the core catches
    helpers: ctx.handle_fail(req, turn, error_obj)  (below), ctx.usage_of(turn),
    ctx.new_id(prefix), ctx.is_fail(turn), ctx.pieces(text, parts) (a text cut
    into delta pieces), ctx.call_arguments(call) (a call's arguments as an object)

ctx.handle_fail(req, turn, error_obj): for a "fail" turn with "status" sends
error_obj as JSON with that status (and Retry-After) and returns True; with
"hang" blocks until the server stops (then drops the connection); with
"cut_after_events" (or "hang" and "after_events") arms the cut (the stall): the
core cuts the connection (stalls) after the Nth ctx.sse_event, or right after
start_sse when N is 0, and handle_fail returns False so the handler streams as
usual; for other turns returns False.
"""
import argparse
import glob
import gzip
import importlib.util
import itertools
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
import traceback
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
if __name__ == "__main__":  # protocol modules that `import model_server` get this copy
    sys.modules.setdefault("model_server", sys.modules[__name__])
DEFAULT_AFTER = {"text": "{}"}
DEFAULT_SIDE = {"text": "ok"}
DEFAULT_USAGE = {"input_tokens": 100, "cached_tokens": 0, "output_tokens": 10,
                 "reasoning_tokens": 0, "cache_creation_tokens": 0}
REDACTED = "<redacted>"


class ConnectionCut(Exception):
    """Raised by ctx.cut (and an armed cut) to unwind the handler."""


def _secret_header(name):
    n = name.lower()
    return ("authorization" in n or "api-key" in n or "api_key" in n or "apikey" in n
            or n in ("cookie", "set-cookie") or n.endswith("-token"))


def _secret_param(name):
    n = name.lower()
    return n in ("key", "api_key", "apikey", "api-key", "access_token", "token")


def usage_of(turn):
    """The turn's usage with every field present (defaults: DEFAULT_USAGE)."""
    usage = dict(DEFAULT_USAGE)
    given = (turn or {}).get("usage") or {}
    for name in usage:
        if isinstance(given.get(name), int):
            usage[name] = given[name]
    return usage


def is_fail(turn):
    return isinstance(turn, dict) and isinstance(turn.get("fail"), dict)


def pieces(text, parts=3):
    """The text cut into `parts` pieces (fewer when it is short): what streams as deltas."""
    if not text:
        return []
    size = max(1, -(-len(text) // parts))
    return [text[i:i + size] for i in range(0, len(text), size)]


def call_arguments(call):
    """A script tool call's arguments as an object (a string that is not JSON: {"input": s})."""
    args = call.get("arguments", {})
    if isinstance(args, str):
        try:
            return json.loads(args)
        except ValueError:
            return {"input": args}
    return args


class Request:
    """One HTTP request as handlers see it."""

    def __init__(self, handler, seq, method, path, query, headers, body, parsed):
        self._h = handler
        self.seq = seq
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.json = parsed
        self.answered = False      # a status line was sent
        self.streaming = False     # inside start_sse .. end_sse
        self.cut_after = None      # armed cut: SSE events sent before the cut
        self.hang_after = None     # armed stall: SSE events sent before the stall
        self.events_sent = 0


class Context:
    """What protocol handlers get: the script, the log and response writers."""

    def __init__(self, script, log_path, turn_log=False, verbose=False):
        self.script = script
        self.turns = list(script.get("turns") or [])
        self.after = script.get("after") or DEFAULT_AFTER
        self.rules = [r for r in script.get("rules") or [] if isinstance(r, dict) and isinstance(r.get("turn"), dict)]
        self.side = script.get("side") or DEFAULT_SIDE
        self._turn_index = 0
        self._repeat_left = None
        self._lock = threading.Lock()
        self._log_lock = threading.Lock()
        self._log = open(log_path, "a", encoding="utf-8") if log_path else None
        self._turn_log = turn_log
        self.verbose = verbose
        self._seq = itertools.count(1)
        self._ids = itertools.count(1)
        self.stopping = threading.Event()
        self.usage_of = usage_of
        self.is_fail = is_fail
        self.pieces = pieces
        self.call_arguments = call_arguments

    # -- script ---------------------------------------------------------
    def next_turn(self, protocol_name, req, side=False):
        rule = None if side else self._matching_rule(req)
        if side:
            turn, label = self.side, "side"
        elif rule is not None:
            turn, label = self.rules[rule]["turn"], f"rule {rule}"
        else:
            with self._lock:
                if self._turn_index < len(self.turns):
                    label = self._turn_index
                    turn = self.turns[self._turn_index]
                    if is_fail(turn):
                        if self._repeat_left is None:
                            k = turn.get("repeat", turn["fail"].get("repeat", 1))
                            self._repeat_left = max(int(k), 1)
                        self._repeat_left -= 1
                        if self._repeat_left <= 0:
                            self._repeat_left = None
                            self._turn_index += 1
                    else:
                        self._turn_index += 1
                else:
                    turn, label = self.after, "after"
        if self._turn_log:
            self.log({"seq": getattr(req, "seq", None), "turn": label,
                      "protocol": protocol_name, "side": bool(side)})
        if self.verbose:
            print(f"model_server: #{getattr(req, 'seq', '?')} {protocol_name} turn {label}",
                  file=sys.stderr, flush=True)
        delay = turn.get("delay_ms") if isinstance(turn, dict) else None
        if isinstance(delay, (int, float)) and delay > 0:
            self.stopping.wait(delay / 1000.0)
        return turn

    def _matching_rule(self, req):
        # "rules": [{"contains": TEXT, "turn": TURN}, ...]: a request whose body holds TEXT gets
        # that TURN, whatever the order (for concurrent agents with different tasks, e.g. a
        # study run's providers and its judge on one server).
        body = req.body.decode("utf-8", "replace") if isinstance(getattr(req, "body", None), bytes) else ""
        for index, rule in enumerate(self.rules):
            if rule.get("contains") and rule["contains"] in body:
                return index
        return None

    def turns_used(self):
        with self._lock:
            return self._turn_index

    def new_id(self, prefix="id"):
        return f"{prefix}_{os.getpid():x}{next(self._ids):06d}"

    # -- log --------------------------------------------------------------
    def log(self, obj):
        if self._log is None:
            return
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        with self._log_lock:
            self._log.write(line + "\n")
            self._log.flush()

    def close(self):
        with self._log_lock:
            if self._log is not None:
                self._log.close()
                self._log = None

    # -- responses ----------------------------------------------------------
    def _write(self, req, data):
        h = req._h
        try:
            h.wfile.write(data)
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            h.close_connection = True
            raise ConnectionCut("client went away")

    def _status(self, req, status, headers):
        if req.answered:
            raise RuntimeError("request already answered")
        req.answered = True
        h = req._h
        h.send_response(status)
        for name, value in (headers or {}).items():
            h.send_header(name, str(value))

    def send_json(self, req, status, obj, headers=None):
        body = json.dumps(obj, separators=(",", ":")).encode("utf-8")
        hdrs = {"Content-Type": "application/json", "Content-Length": str(len(body))}
        hdrs.update(headers or {})
        self._status(req, status, hdrs)
        req._h.end_headers()
        if req.method != "HEAD":
            self._write(req, body)

    def start_sse(self, req, headers=None):
        hdrs = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                "Transfer-Encoding": "chunked"}
        hdrs.update(headers or {})
        self._status(req, 200, hdrs)
        req._h.end_headers()
        req._h.wfile.flush()
        req.streaming = True
        self._maybe_stop(req)

    def _maybe_stop(self, req):
        if req.cut_after is not None and req.events_sent >= req.cut_after:
            self.cut(req)
        if req.hang_after is not None and req.events_sent >= req.hang_after:
            self._hang(req)

    def _hang(self, req):
        while not self.stopping.wait(0.5):
            pass
        self.cut(req)

    def _chunk(self, req, text):
        data = text.encode("utf-8")
        if data:
            self._write(req, b"%x\r\n%s\r\n" % (len(data), data))

    def sse_raw(self, req, text):
        self._chunk(req, text)

    def sse_event(self, req, data_obj, event=None):
        data = data_obj if isinstance(data_obj, str) else json.dumps(
            data_obj, ensure_ascii=False, separators=(",", ":"))
        text = (f"event: {event}\n" if event else "") + f"data: {data}\n\n"
        self._chunk(req, text)
        req.events_sent += 1
        self._maybe_stop(req)

    def end_sse(self, req):
        if req.streaming:
            req.streaming = False
            self._write(req, b"0\r\n\r\n")

    def cut(self, req):
        h = req._h
        h.close_connection = True
        req.streaming = False
        try:
            h.wfile.flush()
        except OSError:
            pass
        try:   # SO_LINGER 0: close sends a reset, the client sees the stream break
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        try:
            h.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            h.connection.close()
        except OSError:
            pass
        raise ConnectionCut("cut by script")

    def handle_fail(self, req, turn, error_obj):
        if not is_fail(turn):
            return False
        fail = turn["fail"]
        if fail.get("hang"):
            if "after_events" in fail:
                req.hang_after = int(fail["after_events"])
                return False
            self._hang(req)
        if "cut_after_events" in fail:
            req.cut_after = int(fail["cut_after_events"])
            return False
        status = int(fail.get("status", 500))
        headers = {}
        if "retry_after" in fail:
            headers["Retry-After"] = str(fail["retry_after"])
        if isinstance(fail.get("headers"), dict):
            headers.update(fail["headers"])
        self.send_json(req, status, error_obj, headers)
        return True


def load_protocols(directory=HERE):
    """[(protocol, method, compiled regex, handler)] from model_server_*.py."""
    routes = []
    for path in sorted(glob.glob(os.path.join(directory, "model_server_*.py"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(stem, module)
        spec.loader.exec_module(module)
        protocol = getattr(module, "PROTOCOL", stem[len("model_server_"):])
        for method, pattern, handler in getattr(module, "ROUTES", []):
            routes.append((protocol, method.upper(), re.compile(pattern), handler))
    return routes


def _decode_body(raw, encoding):
    encoding = (encoding or "").lower().strip()
    try:
        if encoding == "gzip":
            return gzip.decompress(raw)
        if encoding == "deflate":
            return zlib.decompress(raw)
    except (OSError, zlib.error, EOFError):
        pass
    return raw


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "strata-model-server/1"

    def log_message(self, fmt, *args):
        if self.server.ctx.verbose:
            sys.stderr.write("model_server: " + (fmt % args) + "\n")

    def _read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(parts)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _dispatch(self):
        ctx = self.server.ctx
        split = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        headers = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = headers[key] + ", " + value if key in headers else value
        body = _decode_body(self._read_body(), headers.get("content-encoding"))
        parsed = None
        if body:
            try:
                parsed = json.loads(body)
            except (ValueError, UnicodeDecodeError):
                parsed = None
        seq = next(ctx._seq)
        entry = {"seq": seq, "time": round(time.time(), 3), "method": self.command,
                 "path": split.path,
                 "query": {k: (REDACTED if _secret_param(k) else v) for k, v in query.items()},
                 "headers": {k: (REDACTED if _secret_header(k) else v) for k, v in headers.items()},
                 "body": parsed}
        if parsed is None and body:
            try:
                entry["body_text"] = body.decode("utf-8")
            except UnicodeDecodeError:
                entry["body_bytes"] = len(body)
        ctx.log(entry)
        req = Request(self, seq, self.command, split.path, query, headers, body, parsed)
        route = None
        for protocol, method, regex, handler in self.server.routes:
            if method in ("*", self.command) and regex.search(split.path):
                route = handler
                break
        try:
            if route is None:
                ctx.send_json(req, 404, {"error": {"message": f"no route for {self.command} {split.path}",
                                                   "type": "not_found"}})
            else:
                route(ctx, req)
                if req.streaming:
                    ctx.end_sse(req)
                elif not req.answered:
                    ctx.send_json(req, 500, {"error": {"message": "handler sent no answer",
                                                       "type": "server_error"}})
        except ConnectionCut:
            self.close_connection = True
        except Exception:  # a handler bug: report it, answer 500 when still possible
            traceback.print_exc(file=sys.stderr)
            ctx.log({"seq": seq, "handler_error": traceback.format_exc(limit=5)})
            self.close_connection = True
            if not req.answered:
                try:
                    ctx.send_json(req, 500, {"error": {"message": "handler error",
                                                       "type": "server_error"}})
                except Exception:
                    pass

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _dispatch


class ModelServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, ctx, routes, host="127.0.0.1", port=0):
        self.ctx = ctx
        self.routes = routes
        super().__init__((host, port), _Handler)


def start_server(script, log_path, port=0, turn_log=False, verbose=False):
    """Start in a background thread (for in-process tests): (server, port).
    Stop with stop_server(server)."""
    ctx = Context(script, log_path, turn_log=turn_log, verbose=verbose)
    server = ModelServer(ctx, load_protocols(), port=port)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              daemon=True)
    thread.start()
    return server, server.server_address[1]


def stop_server(server):
    server.ctx.stopping.set()
    server.shutdown()
    server.server_close()
    server.ctx.close()


def _write_port_file(path, port):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"{port}\n")
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Scripted model server (loopback).")
    parser.add_argument("--script", required=True, help="script JSON file")
    parser.add_argument("--log", required=True, help="request log (JSON lines, appended)")
    parser.add_argument("--port-file", required=True, help="receives the port once listening")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--turn-log", action="store_true", help="log each turn handed out")
    parser.add_argument("--verbose", action="store_true", help="requests on stderr")
    args = parser.parse_args(argv)
    with open(args.script, encoding="utf-8") as f:
        script = json.load(f)
    if not isinstance(script, dict):
        parser.error("the script must be a JSON object")

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server, port = start_server(script, args.log, port=args.port, turn_log=args.turn_log,
                                verbose=args.verbose)
    _write_port_file(args.port_file, port)
    while not stop.wait(0.5):
        pass
    stop_server(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
