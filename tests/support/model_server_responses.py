"""OpenAI Responses API for the scripted model server (what Codex uses).

Routes (paths matched anywhere under a base URL, e.g. /v1/responses):

  POST .../responses         a main turn: one script turn streamed as SSE events
                             (or one JSON response when "stream" is not true)
  POST .../responses/compact a side call: answered with a short summary output
  GET  .../models            a side call: an empty model list
  GET  .../responses         (a WebSocket upgrade attempt) 404, so clients fall
                             back to HTTP + SSE

The stream follows the public Responses streaming events, each with "type" and
"sequence_number": response.created, response.in_progress, then per output item
response.output_item.added, [message: response.content_part.added,
response.output_text.delta (the text in a few pieces), response.output_text.done,
response.content_part.done | function call: response.function_call_arguments.delta,
response.function_call_arguments.done | custom tool call:
response.custom_tool_call_input.delta, response.custom_tool_call_input.done],
response.output_item.done, and last response.completed with the usage
(input_tokens, input_tokens_details.cached_tokens, output_tokens,
output_tokens_details.reasoning_tokens, total_tokens).

Tool calls: a script call {"name", "arguments": {...}} becomes a "function_call"
item (call_id, name, arguments as a JSON string). When the request's "tools"
declare that name as a "custom" tool (Codex declares apply_patch that way), the
call becomes a "custom_tool_call" item whose "input" is the call's "input"
string, or "arguments" when that is a string, or arguments["input"].
A call to "local_shell" with {"command": [...]} becomes a "local_shell_call".

A request is a side call (no script turn consumed) when it is the compact
endpoint or a model listing. Every POST .../responses is a main turn.

What Codex 0.169.0 offers (seen in its requests; script tool names must match):
  * catalog models (gpt-6.x, gpt-5.6-*, the default gpt-6.1-sol): "code mode":
    no top-level "tools"; an input item {"type": "additional_tools"} holds
    namespaces "functions" (custom "exec": JavaScript run in a V8 isolate whose
    global `tools` has exec_command, apply_patch, write_stdin, view_image, ...;
    "wait", "request_user_input", ...), "clock", "collaboration". A shell
    command is then {"name": "exec", "input": "const r = await
    tools.exec_command({cmd: 'cat a.txt'}); text(r.output);"} and an edit
    {"name": "exec", "input": "await tools.apply_patch('*** Begin Patch...');"}.
  * gpt-5.5: "tools" = exec_command {cmd, ...}, write_stdin, request_user_input,
    apply_patch (custom, freeform patch text), view_image, goals, tool_search,
    web_search.
  * a slug Codex does not know: the same without apply_patch (fallback metadata).
"""
import json
import time

PROTOCOL = "responses"



def _usage(ctx, turn):
    u = ctx.usage_of(turn)
    return {"input_tokens": u["input_tokens"],
            "input_tokens_details": {"cached_tokens": u["cached_tokens"]},
            "output_tokens": u["output_tokens"],
            "output_tokens_details": {"reasoning_tokens": u["reasoning_tokens"]},
            "total_tokens": u["input_tokens"] + u["output_tokens"]}


def _walk_tools(tools, namespace, kinds):
    for tool in tools or []:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            _walk_tools(tool.get("tools"), tool.get("name"), kinds)
            continue
        name = tool.get("name") or (tool.get("function") or {}).get("name") or tool.get("type")
        if name:
            kinds.setdefault(name, (tool.get("type", "function"), namespace))


def _tool_kinds(body):
    """{name: (type, namespace)} of the tools the request offers: its "tools" and,
    as Codex 0.169 sends them, "additional_tools" items of its input (tools
    grouped in namespaces, e.g. {"type": "namespace", "name": "functions"})."""
    kinds = {}
    _walk_tools((body or {}).get("tools"), None, kinds)
    for item in (body or {}).get("input") or []:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            _walk_tools(item.get("tools"), None, kinds)
    return kinds


def _items(ctx, turn, body):
    """The output items of a turn (completed form)."""
    items = []
    kinds = _tool_kinds(body)
    for call in turn.get("tool_calls") or []:
        name = call.get("name", "")
        call_id = call.get("id") or ctx.new_id("call")
        args = call.get("arguments", {})
        kind, _namespace = kinds.get(name, ("function", None))  # Codex needs no namespace
        if kind == "custom" or "input" in call:
            if "input" in call:
                text = call["input"]
            elif isinstance(args, str):
                text = args
            else:
                text = (args or {}).get("input", json.dumps(args))
            items.append({"type": "custom_tool_call", "id": ctx.new_id("ctc"), "status": "completed",
                          "call_id": call_id, "name": name, "input": text})
        elif kind == "local_shell":
            items.append({"type": "local_shell_call", "id": ctx.new_id("lsh"), "status": "completed",
                          "call_id": call_id,
                          "action": {"type": "exec", "command": (args or {}).get("command", []),
                                     "env": {}, "timeout_ms": None, "working_directory": None,
                                     "user": None}})
        else:
            text = args if isinstance(args, str) else json.dumps(args, separators=(",", ":"))
            items.append({"type": "function_call", "id": ctx.new_id("fc"), "status": "completed",
                          "call_id": call_id, "name": name, "arguments": text})
    if "text" in turn or not items:
        items.append({"type": "message", "id": ctx.new_id("msg"), "status": "completed",
                      "role": "assistant",
                      "content": [{"type": "output_text", "text": turn.get("text", ""),
                                   "annotations": []}]})
    return items


def _response(resp_id, model, status, output, usage):
    return {"id": resp_id, "object": "response", "created_at": int(time.time()),
            "status": status, "model": model, "output": output, "usage": usage,
            "error": None, "incomplete_details": None, "parallel_tool_calls": True,
            "tool_choice": "auto", "tools": []}


def _error(status, fail):
    if status == 429:
        return {"error": {"message": "Rate limit reached (scripted).", "type": "requests",
                          "param": None, "code": "rate_limit_exceeded"}}
    return {"error": {"message": f"Scripted failure (HTTP {status}).", "type": "server_error",
                      "param": None, "code": "server_error" if status >= 500 else None}}


def _stream(ctx, req, turn, body):
    model = (body or {}).get("model") or "scripted-model"
    resp_id = ctx.new_id("resp")
    seq = [0]

    def emit(kind, **fields):
        event = {"type": kind, "sequence_number": seq[0]}
        event.update(fields)
        seq[0] += 1
        ctx.sse_event(req, event, event=kind)

    ctx.start_sse(req, {"x-request-id": resp_id, "openai-model": model})
    emit("response.created", response=_response(resp_id, model, "in_progress", [], None))
    emit("response.in_progress", response=_response(resp_id, model, "in_progress", [], None))
    items = _items(ctx, turn, body)
    for index, item in enumerate(items):
        kind = item["type"]
        if kind == "message":
            text = item["content"][0]["text"]
            emit("response.output_item.added", output_index=index,
                 item=dict(item, status="in_progress", content=[]))
            base = {"item_id": item["id"], "output_index": index, "content_index": 0}
            emit("response.content_part.added", **base,
                 part={"type": "output_text", "text": "", "annotations": []})
            for piece in ctx.pieces(text):
                emit("response.output_text.delta", **base, delta=piece, logprobs=[])
            emit("response.output_text.done", **base, text=text, logprobs=[])
            emit("response.content_part.done", **base,
                 part={"type": "output_text", "text": text, "annotations": []})
        elif kind == "function_call":
            emit("response.output_item.added", output_index=index,
                 item=dict(item, status="in_progress", arguments=""))
            base = {"item_id": item["id"], "output_index": index}
            for piece in ctx.pieces(item["arguments"]):
                emit("response.function_call_arguments.delta", **base, delta=piece)
            emit("response.function_call_arguments.done", **base, arguments=item["arguments"])
        elif kind == "custom_tool_call":
            emit("response.output_item.added", output_index=index,
                 item=dict(item, status="in_progress", input=""))
            base = {"item_id": item["id"], "output_index": index}
            for piece in ctx.pieces(item["input"]):
                emit("response.custom_tool_call_input.delta", **base, delta=piece)
            emit("response.custom_tool_call_input.done", **base, input=item["input"])
        else:
            emit("response.output_item.added", output_index=index, item=item)
        emit("response.output_item.done", output_index=index, item=item)
    emit("response.completed",
         response=_response(resp_id, model, "completed", items, _usage(ctx, turn)))
    ctx.end_sse(req)


def responses(ctx, req):
    body = req.json if isinstance(req.json, dict) else {}
    turn = ctx.next_turn(PROTOCOL, req)
    fail = turn.get("fail") if ctx.is_fail(turn) else None
    if fail is not None and ctx.handle_fail(req, turn, _error(int(fail.get("status", 500)), fail)):
        return
    if body.get("stream"):
        _stream(ctx, req, turn, body)
        return
    model = body.get("model") or "scripted-model"
    ctx.send_json(req, 200, _response(ctx.new_id("resp"), model, "completed",
                                      _items(ctx, turn, body), _usage(ctx, turn)))


def compact(ctx, req):
    """Side call: remote compaction of the history; a short summary, no turn."""
    ctx.send_json(req, 200, {"output": [{"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "(compacted by the scripted model server)"}]}]})


def models(ctx, req):
    """Side call: the model list (OpenAI's shape and Codex's own, both empty)."""
    ctx.send_json(req, 200, {"object": "list", "data": [], "models": []})


def no_websocket(ctx, req):
    ctx.send_json(req, 404, {"error": {"message": "no websocket here", "type": "not_found"}})


ROUTES = [
    ("POST", r"/responses/compact$", compact),
    ("POST", r"/responses$", responses),
    ("GET", r"/responses$", no_websocket),
    ("GET", r"/models$", models),
]
