"""Anthropic Messages API for the scripted model server (what Claude Code uses).

Routes (matched anywhere under a base URL, e.g. /v1/messages):

  POST .../messages               a main turn or a side call (below); SSE when
                                  "stream" is true, else one JSON message
  POST .../messages/count_tokens  side: {"input_tokens": N} (N ~ body bytes / 4)
  (GET /v1/models is left to model_server_chat, whose OpenAI-shaped list is
  matched by path only; Claude Code 2.1.328 did not list models here)
  anything else under .../api/... answered 200 {} (Claude Code's account and
                                  settings probes; normally off with
                                  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1)

The stream is the public Messages streaming format: message_start (the message
with its usage), per block content_block_start, content_block_delta (text_delta
pieces for text, input_json_delta pieces of the JSON for tool_use),
content_block_stop, then message_delta (stop_reason "tool_use" when the turn
calls tools, else "end_turn", and the usage) and message_stop; one "ping" after
message_start, as the API sends. Usage: input_tokens, cache_read_input_tokens
(the script's cached_tokens), cache_creation_input_tokens, output_tokens.

Main turn or side call. A request is a main turn when it offers tools (Claude
Code's agent loop, and its sub-agents, always send their tool list). A request
without tools is a side call (Claude Code's title / topic / summary requests on
the small model, the quota probe with max_tokens 1, ...): it gets the script's
"side" turn (default text "ok") and consumes nothing. A request whose last
message is only the tool_result of a StructuredOutput call (the answer has been
delivered and accepted) is also a side call: it is answered with an empty
end_turn text, so the script's turns are spent on the agent's real work only.

StructuredOutput. With --json-schema, Claude Code adds a tool "StructuredOutput"
whose input is the answer; the real model answers by calling that tool. So a
final TURN {"text": X} is delivered as a tool_use of StructuredOutput with
input = json.loads(X) when the request's tools contain StructuredOutput and X
parses as a JSON object; otherwise (no such tool, or X not a JSON object) as a
plain text block. A script can still force plain text with {"text": X,
"plain": true}, or call StructuredOutput itself as an ordinary tool call.

Failures: {"type": "error", "error": {"type": ..., "message": ...}} with the
turn's status (429 rate_limit_error, 529 overloaded_error, 5xx api_error, 4xx
invalid_request_error) and Retry-After when given.
"""
import json

PROTOCOL = "anthropic"
STRUCTURED = "StructuredOutput"



def _usage(ctx, turn):
    u = ctx.usage_of(turn)
    return {"input_tokens": u["input_tokens"],
            "cache_creation_input_tokens": u["cache_creation_tokens"],
            "cache_read_input_tokens": u["cached_tokens"],
            "output_tokens": u["output_tokens"]}


def _tool_names(body):
    return {t.get("name") for t in (body.get("tools") or []) if isinstance(t, dict)}


def _structured_output_ids(body):
    """Ids of StructuredOutput tool_use blocks in the history."""
    ids = set()
    for message in body.get("messages") or []:
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_use" \
                        and block.get("name") == STRUCTURED:
                    ids.add(block.get("id"))
    return ids


def _answers_structured_output(body):
    """The last message is only the (successful) tool_result of a StructuredOutput
    call. Claude Code does not normally ask again after one; when it does with
    more in that message (e.g. a <task-notification> of a background sub-agent
    that finished after the answer), the request is a main turn."""
    messages = body.get("messages") or []
    if not messages or messages[-1].get("role") != "user":
        return False
    content = messages[-1].get("content")
    if not isinstance(content, list) or not content:
        return False
    ids = _structured_output_ids(body)
    return all(isinstance(b, dict) and b.get("type") == "tool_result"
               and b.get("tool_use_id") in ids and not b.get("is_error") for b in content)


def _is_side(body):
    return not body.get("tools") or _answers_structured_output(body)


def _blocks(ctx, turn, body):
    """The content blocks of a turn and the stop reason."""
    blocks = []
    tools = _tool_names(body)
    for call in turn.get("tool_calls") or []:
        args = ctx.call_arguments(call)
        blocks.append({"type": "tool_use", "id": call.get("id") or ctx.new_id("toolu"),
                       "name": call.get("name", ""), "input": args})
    if blocks:
        if turn.get("text"):
            blocks.insert(0, {"type": "text", "text": turn["text"]})
        return blocks, "tool_use"
    text = turn.get("text", "")
    if STRUCTURED in tools and not turn.get("plain"):
        try:
            answer = json.loads(text)
        except ValueError:
            answer = None
        if isinstance(answer, dict):
            return [{"type": "tool_use", "id": ctx.new_id("toolu"), "name": STRUCTURED,
                     "input": answer}], "tool_use"
    return [{"type": "text", "text": text}], "end_turn"


def _error(status, fail):
    if status == 429:
        kind = "rate_limit_error"
    elif status == 529:
        kind = "overloaded_error"
    elif status >= 500:
        kind = "api_error"
    elif status in (401, 403):
        kind = "authentication_error" if status == 401 else "permission_error"
    else:
        kind = "invalid_request_error"
    return {"type": "error", "error": {"type": kind,
                                       "message": fail.get("message", f"Scripted failure (HTTP {status}).")}}


def _message(msg_id, model, content, stop_reason, usage):
    return {"id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": usage}


def _stream(ctx, req, body, blocks, stop_reason, usage):
    model = body.get("model") or "scripted-model"
    msg_id = ctx.new_id("msg")
    ctx.start_sse(req, {"request-id": ctx.new_id("req")})
    start_usage = dict(usage, output_tokens=1)
    ctx.sse_event(req, {"type": "message_start",
                        "message": _message(msg_id, model, [], None, start_usage)},
                  event="message_start")
    ctx.sse_event(req, {"type": "ping"}, event="ping")
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            ctx.sse_event(req, {"type": "content_block_start", "index": index,
                                "content_block": {"type": "text", "text": ""}},
                          event="content_block_start")
            for piece in ctx.pieces(block["text"]):
                ctx.sse_event(req, {"type": "content_block_delta", "index": index,
                                    "delta": {"type": "text_delta", "text": piece}},
                              event="content_block_delta")
        else:
            ctx.sse_event(req, {"type": "content_block_start", "index": index,
                                "content_block": {"type": "tool_use", "id": block["id"],
                                                  "name": block["name"], "input": {}}},
                          event="content_block_start")
            for piece in ctx.pieces(json.dumps(block["input"], separators=(",", ":"))):
                ctx.sse_event(req, {"type": "content_block_delta", "index": index,
                                    "delta": {"type": "input_json_delta", "partial_json": piece}},
                              event="content_block_delta")
        ctx.sse_event(req, {"type": "content_block_stop", "index": index},
                      event="content_block_stop")
    ctx.sse_event(req, {"type": "message_delta",
                        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                        "usage": usage}, event="message_delta")
    ctx.sse_event(req, {"type": "message_stop"}, event="message_stop")
    ctx.end_sse(req)


def messages(ctx, req):
    body = req.json if isinstance(req.json, dict) else {}
    if _answers_structured_output(body):
        turn = {"text": "", "plain": True, "usage": {"input_tokens": 10, "output_tokens": 1}}
    else:
        turn = ctx.next_turn(PROTOCOL, req, side=_is_side(body))
    if ctx.is_fail(turn):
        fail = turn["fail"]
        if ctx.handle_fail(req, turn, _error(int(fail.get("status", 500)), fail)):
            return
    blocks, stop_reason = _blocks(ctx, turn, body)
    usage = _usage(ctx, turn)
    if body.get("stream"):
        _stream(ctx, req, body, blocks, stop_reason, usage)
    else:
        ctx.send_json(req, 200, _message(ctx.new_id("msg"), body.get("model") or "scripted-model",
                                         blocks, stop_reason, usage))


def count_tokens(ctx, req):
    ctx.send_json(req, 200, {"input_tokens": max(1, len(req.body) // 4)})


def account_probe(ctx, req):
    ctx.send_json(req, 200, {})


ROUTES = [
    ("POST", r"/messages/count_tokens$", count_tokens),
    ("POST", r"/messages$", messages),
    ("*", r"^/api/", account_probe),
]
