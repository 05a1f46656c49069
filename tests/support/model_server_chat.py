"""OpenAI Chat Completions for the scripted model server (what OpenCode's
"@ai-sdk/openai-compatible" providers, and many other clients, use).

Routes (matched at the end of the path, so any base URL prefix works, e.g. /v1/...):

  POST .../chat/completions   a main turn: one script turn. With "stream": true, SSE
        `data: <chat.completion.chunk>` events: the role, the text in a few content deltas
        (or, for tool calls, one delta per call with id/type/name and "arguments": "" then
        the arguments JSON string in two deltas), a chunk with finish_reason ("stop" or
        "tool_calls"), a chunk with "choices": [] and "usage" {prompt_tokens (cached
        included), completion_tokens (reasoning included), total_tokens,
        prompt_tokens_details.cached_tokens, completion_tokens_details.reasoning_tokens},
        then `data: [DONE]`. The usage chunk is sent whether or not the request asked for
        stream_options.include_usage. Without "stream", one chat.completion object.
  POST .../chat/completions   a side call instead (no turn consumed) when it is a session
        title request: OpenCode's title agent (system prompt "You are a title generator..."),
        answered with the script's "side" text or "Scripted session".
  GET  /v1/models[/<id>]      a side call: a one-model list (or the model asked for); the list
        also carries "models": [] as model_server_responses answers Codex on this path.
        (Modules are tried in file-name order: while model_server_anthropic.py is present its
        /v1/models routes, which also carry OpenAI's keys, answer first. OpenCode 1.18.33
        never calls it.)

structured_output. With --json-schema, Qwen Code offers a tool "structured_output" whose
arguments are the answer, and ends its run on the first valid call. As model_server_anthropic
does for Claude Code's StructuredOutput, a TURN {"text": X} is delivered as a call of
structured_output with X's object as arguments when the request offers that tool and X parses
as a JSON object; {"text": X, "plain": true} forces plain text.

Failures go through ctx.handle_fail with an OpenAI error body
({"error": {"message", "type", "param", "code"}}).
"""
import json
import re
import time

PROTOCOL = "chat"
STRUCTURED = "structured_output"

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                403: "permission_error", 404: "not_found_error",
                429: "rate_limit_exceeded", 500: "server_error", 503: "server_error"}


def error_body(fail):
    status = int((fail or {}).get("status", 500))
    kind = _ERROR_TYPES.get(status, "server_error")
    return {"error": {"message": f"scripted failure ({status})", "type": kind,
                      "param": None, "code": kind}}


def usage_object(u):
    return {"prompt_tokens": u["input_tokens"],
            "completion_tokens": u["output_tokens"] + u["reasoning_tokens"],
            "total_tokens": u["input_tokens"] + u["output_tokens"] + u["reasoning_tokens"],
            "prompt_tokens_details": {"cached_tokens": u["cached_tokens"]},
            "completion_tokens_details": {"reasoning_tokens": u["reasoning_tokens"]}}



def _arguments(call):
    args = call.get("arguments", {})
    return args if isinstance(args, str) else json.dumps(args, separators=(",", ":"))


def _text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def side_kind(body):
    """The kind of side call a chat request is, or None for a main turn."""
    messages = (body or {}).get("messages") or []
    system = " ".join(_text_of(m.get("content")) for m in messages
                      if isinstance(m, dict) and m.get("role") == "system")
    if re.search(r"\byou are a title generator\b", system, re.I):
        return "title"
    return None


class _Chunks:
    def __init__(self, ctx, req, model):
        self.ctx, self.req = ctx, req
        self.base = {"id": ctx.new_id("chatcmpl"), "object": "chat.completion.chunk",
                     "created": int(time.time()), "model": model,
                     "system_fingerprint": "fp_scripted"}

    def send(self, delta=None, finish=None, usage=None, choices=True):
        chunk = dict(self.base)
        chunk["choices"] = ([{"index": 0, "delta": delta or {}, "logprobs": None,
                              "finish_reason": finish}] if choices else [])
        if usage is not None:
            chunk["usage"] = usage
        self.ctx.sse_event(self.req, chunk)


def stream_turn(ctx, req, turn, model, min_events=0):
    out = _Chunks(ctx, req, model)
    calls = turn.get("tool_calls") or []
    text = turn.get("text", "")
    if not calls and not text and min_events:
        text = "partial answer that the stream cuts before it finishes"
    ctx.start_sse(req)
    out.send({"role": "assistant", "content": ""})
    for piece in ctx.pieces(text, max(3, min_events + 1)):
        out.send({"content": piece})
    for index, call in enumerate(calls):
        call_id = call.get("id") or ctx.new_id("call")
        out.send({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                  "function": {"name": call.get("name", ""), "arguments": ""}}]})
        for piece in ctx.pieces(_arguments(call), 2):
            out.send({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    out.send({}, "tool_calls" if calls else "stop")
    out.send(usage=usage_object(ctx.usage_of(turn)), choices=False)
    ctx.sse_event(req, "[DONE]")
    ctx.end_sse(req)


def json_turn(ctx, req, turn, model):
    calls = turn.get("tool_calls") or []
    message = {"role": "assistant", "content": turn.get("text") if "text" in turn or not calls
               else None}
    if calls:
        message["tool_calls"] = [{"id": c.get("id") or ctx.new_id("call"), "type": "function",
                                  "function": {"name": c.get("name", ""),
                                               "arguments": _arguments(c)}} for c in calls]
    ctx.send_json(req, 200, {
        "id": ctx.new_id("chatcmpl"), "object": "chat.completion", "created": int(time.time()),
        "model": model, "system_fingerprint": "fp_scripted",
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": usage_object(ctx.usage_of(turn))})


def as_structured_output(turn, body):
    """The turn, its JSON-object text as a structured_output call when the request offers it."""
    offered = {(t.get("function") or {}).get("name") for t in (body.get("tools") or []) if isinstance(t, dict)}
    if STRUCTURED not in offered or turn.get("tool_calls") or turn.get("plain") or "fail" in turn:
        return turn
    try:
        answer = json.loads(turn.get("text", ""))
    except ValueError:
        return turn
    if not isinstance(answer, dict):
        return turn
    return dict({k: v for k, v in turn.items() if k != "text"}, tool_calls=[{"name": STRUCTURED, "arguments": answer}])


def chat_completions(ctx, req):
    body = req.json if isinstance(req.json, dict) else {}
    model = body.get("model") or "scripted"
    kind = side_kind(body)
    if kind:
        side = ctx.next_turn(PROTOCOL, req, side=True)
        ctx.log({"seq": req.seq, "protocol": PROTOCOL, "side_call": kind})
        turn = {"text": side.get("text") or "Scripted session",
                "usage": {"input_tokens": 0, "output_tokens": 0}}
    else:
        turn = ctx.next_turn(PROTOCOL, req)
        if ctx.handle_fail(req, turn, error_body(turn.get("fail"))):
            return
    turn = as_structured_output(turn, body)
    if body.get("stream"):
        fail = turn.get("fail") or {}
        stream_turn(ctx, req, turn, model, int(fail.get("cut_after_events", 0)))
    else:
        json_turn(ctx, req, turn, model)


def list_models(ctx, req):
    ctx.log({"seq": req.seq, "protocol": PROTOCOL, "side_call": "models"})
    entry = {"object": "model", "created": 0, "owned_by": "scripted"}
    m = re.search(r"/models/([^/]+)$", req.path)
    if m:
        ctx.send_json(req, 200, dict(entry, id=m.group(1)))
    else:
        # "models": [] as model_server_responses answers (this route is matched first, so
        # Codex's model refresh on the same path gets the answer it got there)
        ctx.send_json(req, 200, {"object": "list", "data": [dict(entry, id="scripted")],
                                 "models": []})


ROUTES = [
    ("POST", r"/chat/completions$", chat_completions),
    ("GET", r"/v1/models(?:/[^/]+)?$", list_models),
]
