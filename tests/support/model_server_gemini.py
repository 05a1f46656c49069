"""Gemini API (generativelanguage v1beta) for the scripted model server (what Gemini CLI uses).

Gemini CLI (@google/gemini-cli 0.61.0) reaches it with GEMINI_API_KEY=<any> and
GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT, with ~/.gemini/settings.json selecting
{"security": {"auth": {"selectedType": "gemini-api-key"}}} (GOOGLE_GEMINI_BASE_URL alone makes
the CLI pick the "gateway" auth type, which its headless mode rejects: "Invalid auth method").

Routes (under /v1beta/, also /v1/ and /v1alpha/):

  POST models/<m>:streamGenerateContent?alt=sse  a main turn: one script turn as SSE
        `data: <GenerateContentResponse>` events (the SDK reads only `data:` lines, split on
        a blank line). Text in two pieces; tool calls as functionCall parts (args an object,
        the script's id as functionCall.id); the last event has finishReason "STOP" and
        usageMetadata {promptTokenCount (cached included), cachedContentTokenCount,
        candidatesTokenCount (thoughts excluded), thoughtsTokenCount, totalTokenCount}.
  POST models/<m>:generateContent   a side call, never a turn. The CLI's utility calls
        (next-speaker check, loop detection, model router, edit corrector, ...) use it with
        generationConfig.responseMimeType "application/json" + responseJsonSchema: answered
        with a minimal instance of that schema (next_speaker "user", no loop, the simplest
        route); without a schema, the script's "side" text.
  POST models/<m>:countTokens        a side call: {"totalTokens": body bytes / 4}.
  GET  models[/<m>]                  a side call: a listing.

Failures (script "fail" turns) go through ctx.handle_fail with a Google API error body
({"error": {"code", "message", "status"}}; a 429 with retry_after also carries a
google.rpc.RetryInfo detail, which the CLI reads as "Suggested retry after Ns").
"""
import json
import re

PROTOCOL = "gemini"

_PREFIX = r"^/v1(?:beta|alpha)?/models"

_STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
                 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}


def _model_of(req):
    m = re.search(r"/models/([^/:]+)", req.path)
    return m.group(1) if m else "gemini-scripted"


def usage_metadata(u):
    """Script usage (all fields present) -> Gemini usageMetadata."""
    prompt, cached = u["input_tokens"], u["cached_tokens"]
    output, thoughts = u["output_tokens"], u["reasoning_tokens"]
    meta = {"promptTokenCount": prompt, "candidatesTokenCount": output,
            "totalTokenCount": prompt + output + thoughts,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}]}
    if cached:
        meta["cachedContentTokenCount"] = cached
    if thoughts:
        meta["thoughtsTokenCount"] = thoughts
    return meta


def error_body(fail):
    status = int((fail or {}).get("status", 500))
    body = {"error": {"code": status, "message": f"scripted failure ({status})",
                      "status": _STATUS_NAMES.get(status, "UNKNOWN")}}
    if status == 429 and "retry_after" in fail:
        body["error"]["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                     "retryDelay": f"{fail['retry_after']}s"}]
    return body



def _candidate(parts, finish=None):
    cand = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    return cand


def turn_events(ctx, turn, model, min_events=0):
    """The GenerateContentResponse events of a text / tool_calls turn. With min_events
    (an armed cut), the text is split so that more than min_events events come before
    the one that finishes, so the cut always falls before finishReason."""
    response_id = ctx.new_id("resp")
    calls = turn.get("tool_calls") or []
    text = turn.get("text", "")
    if not calls and not text and min_events:
        text = "partial answer that the stream cuts before it finishes"
    pieces = ctx.pieces(text, max(2, min_events + 1)) if text else []
    parts_list = [[{"text": p}] for p in pieces]
    if calls:
        fparts = []
        for call in calls:
            args = ctx.call_arguments(call)
            fc = {"name": call.get("name", ""), "args": args}
            if call.get("id"):
                fc["id"] = call["id"]
            fparts.append({"functionCall": fc})
        parts_list.append(fparts)
    if not parts_list:
        parts_list.append([{"text": ""}])
    events = [{"candidates": [_candidate(p)], "modelVersion": model, "responseId": response_id}
              for p in parts_list]
    last = events[-1]
    last["candidates"] = [_candidate(parts_list[-1], "STOP")]
    last["usageMetadata"] = usage_metadata(ctx.usage_of(turn))
    return events


def stream_generate(ctx, req):
    turn = ctx.next_turn(PROTOCOL, req)
    if ctx.handle_fail(req, turn, error_body(turn.get("fail"))):
        return
    fail = turn.get("fail") or {}
    events = turn_events(ctx, turn, _model_of(req), int(fail.get("cut_after_events", 0)))
    ctx.start_sse(req)
    for event in events:
        ctx.sse_event(req, event)
    ctx.end_sse(req)


# ---- side calls ---------------------------------------------------------------------------

_ANSWERS = {
    "next_speaker": "user",                 # next-speaker check: the user speaks, stop
    "unproductive_state_confidence": 0.0,   # loop detection: no loop
    "complexity_score": 1,                  # numerical router: the simplest route
}


def minimal_instance(schema, key=None):
    """A minimal instance of a JSON schema (the subset the CLI's utility schemas use;
    Gemini's upper-case type names too)."""
    if key in _ANSWERS:
        return _ANSWERS[key]
    if not isinstance(schema, dict):
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if str(k).lower() != "null"), "null")
    kind = str(kind or "").lower()
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {k: minimal_instance(props.get(k, {}), k)
                for k in schema.get("required", list(props))}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        low = schema.get("minimum", 0)
        return low if isinstance(low, (int, float)) else 0
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return ""


def side_kind(body):
    """(kind, schema) of a generateContent side call."""
    gen = (body or {}).get("generationConfig") or {}
    schema = gen.get("responseJsonSchema") or gen.get("responseSchema")
    props = set(((schema or {}).get("properties") or {}).keys())
    if "next_speaker" in props:
        return "next-speaker", schema
    if "unproductive_state_confidence" in props:
        return "loop-detection", schema
    if "model_choice" in props or "complexity_score" in props:
        return "router", schema
    if schema is not None:
        return "json", schema
    return "text", None


def generate(ctx, req):
    kind, schema = side_kind(req.json)
    side = ctx.next_turn(PROTOCOL, req, side=True)
    ctx.log({"seq": req.seq, "protocol": PROTOCOL, "side_call": kind})
    text = json.dumps(minimal_instance(schema)) if schema is not None else side.get("text", "ok")
    ctx.send_json(req, 200, {
        "candidates": [_candidate([{"text": text}], "STOP")],
        "usageMetadata": {"promptTokenCount": 0, "candidatesTokenCount": 0, "totalTokenCount": 0},
        "modelVersion": _model_of(req), "responseId": ctx.new_id("resp")})


def count_tokens(ctx, req):
    ctx.log({"seq": req.seq, "protocol": PROTOCOL, "side_call": "count-tokens"})
    ctx.send_json(req, 200, {"totalTokens": len(req.body or b"") // 4})


def list_models(ctx, req):
    ctx.log({"seq": req.seq, "protocol": PROTOCOL, "side_call": "models"})
    one = re.search(r"/models/([^/:]+)$", req.path)
    name = one.group(1) if one else "gemini-scripted"
    model = {"name": "models/" + name, "displayName": name, "inputTokenLimit": 1048576,
             "outputTokenLimit": 65536,
             "supportedGenerationMethods": ["generateContent", "countTokens"]}
    ctx.send_json(req, 200, model if one else {"models": [model]})


ROUTES = [
    ("POST", _PREFIX + r"/[^/:]+:streamGenerateContent$", stream_generate),
    ("POST", _PREFIX + r"/[^/:]+:generateContent$", generate),
    ("POST", _PREFIX + r"/[^/:]+:countTokens$", count_tokens),
    ("GET", _PREFIX + r"(?:/[^/:]+)?$", list_models),
]
