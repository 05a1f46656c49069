#!/usr/bin/env python3
"""An independent "Shape A" CM event-log writer for tests (usage-boundary spec §2).

The reference `cm-log-event.py` is not available here, so this writer restates the spec
literally (stdlib only) to check that Strata interoperates with a Python writer on one
machine: same flags (§2.2), the `--data-json` and model-event rules (§2.5, §2.7), the same
`flock` locks on the same files in the same order (§2.4), run selection (§2.6), the claim /
completion state checks (§2.8) and the record, event id and write sequence (§2.9).

It also restates the resource / test_run lifecycle and completion gating of
usage-lifecycle.md (§1.2 input rules, §2.1 steps 2-8, §2.3, §2.4, §3), written from the spec
alone, not from Strata's code.

Deliberately NOT implemented (exit 1 "reference writer: … not implemented"): the degraded
mirror / pointer paths of §2.9 steps 2-3. The fixture sequences of the tests never reach them.

Test hook: with REFERENCE_WRITER_HOLD_MS=<n> the writer creates the file named by
REFERENCE_WRITER_HELD_FILE (if set) once it holds its locks, then sleeps n ms before going on,
so a test can show that another writer waits for those locks.
"""
import argparse
import datetime
import fcntl
import json
import os
import re
import secrets
import sys
import time
import uuid
from pathlib import Path

PROG = "cm-log-event"
IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9._-]{0,63}")
CALL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{7,127}")
RESERVED = {"schema_version", "event_id", "run_id", "at", "workflow", "event", "phase", "runtime",
            "project", "project_path", "specs_path", "detail"}
SENSITIVE = re.compile(r"api[_-]?key|authorization|cookie|password|passwd|private[_-]?key|"
                       r"recovery[_-]?code|secret|token", re.IGNORECASE)
TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
TERMINAL = {"done", "run_done"}
CLAIM_KEYS = {"call_id", "stage", "role", "adapter", "requested_model", "source", "purpose"}
USAGE_KEYS = set(TOKEN_KEYS) | {"call_id", "role", "adapter", "requested_model", "effective_model", "provider",
                                "source", "purpose", "stage", "node", "feature", "task", "usage_state",
                                "duration_ms", "outcome", "attempt"}
IDENTITY = ("workflow", "runtime", "stage", "role", "adapter", "requested_model", "source", "purpose")
PROJECT_LOG = "运行日志.jsonl"


class Refused(Exception):
    """A refusal: one stderr line `cm-log-event: <message>` and an exit code (§2.9 end)."""

    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code


# ---- JSON text and event id (§2.3, §2.9) ---------------------------------------------------

def compact(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def event_id_of(record):
    identity = {k: v for k, v in record.items() if k not in ("at", "event_id")}
    canonical = json.dumps(identity, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return str(uuid.uuid5(uuid.NAMESPACE_URL, canonical))


# ---- validation (§2.2, §2.5, §2.7) --------------------------------------------------------

def is_count(value):  # a JSON integer >= 0; bool is not an integer
    return type(value) is int and value >= 0


def one_line(text, limit):
    return len(text) <= limit and not any(c in text for c in "\r\n\0")


def check_identifier(flag, value):
    if not IDENTIFIER.fullmatch(value):
        raise Refused(f"{flag} must match '^[A-Za-z][A-Za-z0-9._-]{{0,63}}$'; got {value!r}")


def find_sensitive(value, path, allowed_top):
    if isinstance(value, dict):
        for key, child in value.items():
            here = f"{path}.{key}"
            if SENSITIVE.search(key) and not (path == "data" and key in allowed_top):
                return here
            found = find_sensitive(child, here, allowed_top)
            if found:
                return found
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found = find_sensitive(child, f"{path}[{index}]", allowed_top)
            if found:
                return found
    return None


def short_text(data, field):
    value = data.get(field)
    if not isinstance(value, str) or not value.strip():
        raise Refused(f"model event requires a non-empty {field}")
    if not one_line(value, 160):
        raise Refused(f"model event {field} must be one line and at most 160 characters")


def check_model_call(data, phase):
    extra = sorted(set(data) - CLAIM_KEYS)
    if extra:
        raise Refused(f"model_call contains unsupported fields: {', '.join(extra)}")
    if phase != "claimed":
        raise Refused("model_call events require phase claimed")
    if not isinstance(data.get("call_id"), str) or not CALL_ID.fullmatch(data["call_id"]):
        raise Refused("model_call requires a valid call_id")
    if not isinstance(data.get("role"), str) or not IDENTIFIER.fullmatch(data["role"]):
        raise Refused("model_call requires a valid role")
    for field in ("stage", "adapter", "requested_model", "source", "purpose"):
        short_text(data, field)


def check_model_usage(data, phase):
    extra = sorted(set(data) - USAGE_KEYS)
    if extra:
        raise Refused(f"model_usage contains unsupported fields: {', '.join(extra)}")
    if phase != "complete":
        raise Refused("model_usage events require phase complete")
    if not isinstance(data.get("call_id"), str) or not CALL_ID.fullmatch(data["call_id"]):
        raise Refused("model_usage requires a valid call_id")
    if not isinstance(data.get("role"), str) or not IDENTIFIER.fullmatch(data["role"]):
        raise Refused("model_usage requires a valid role")
    state = data.get("usage_state")
    if state not in ("observed", "unavailable"):
        raise Refused("model_usage usage_state must be observed or unavailable")
    if data.get("outcome") not in ("success", "error", "blocked", "cancelled"):
        raise Refused("model_usage outcome must be success, error, blocked, or cancelled")
    for field in ("adapter", "requested_model", "source", "purpose", "stage"):
        short_text(data, field)
    for field in ("effective_model", "provider", "node", "feature", "task"):
        if data.get(field) is not None:
            short_text(data, field)
    attempt = data.get("attempt")
    if attempt is not None and not (type(attempt) is int and attempt >= 1):
        raise Refused("model_usage attempt must be a positive integer")
    if state == "unavailable" and any(k in data for k in TOKEN_KEYS):
        raise Refused("unavailable model_usage cannot contain token counts")
    if state == "observed":
        for field in ("input_tokens", "output_tokens"):
            if field not in data:
                raise Refused(f"observed model_usage requires {field}")
    for field in TOKEN_KEYS + ("duration_ms",):
        if field in data and not is_count(data[field]):
            raise Refused(f"model_usage {field} must be a non-negative integer")


def parse_data(text, event, phase):
    if len(text.encode("utf-8")) > 8192:
        raise Refused("--data-json cannot exceed 8192 UTF-8 bytes")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise Refused("--data-json must be a JSON object")
    reserved = sorted(RESERVED & set(data))
    if reserved:
        raise Refused(f"--data-json cannot override reserved fields: {', '.join(reserved)}")
    sensitive = find_sensitive(data, "data", set(TOKEN_KEYS) if event == "model_usage" else set())
    if sensitive:
        raise Refused(f"sensitive log field is forbidden: {sensitive}")
    if event == "model_call":
        check_model_call(data, phase)
    elif event == "model_usage":
        check_model_usage(data, phase)
    elif event == "resource":
        check_resource(data, phase)
    elif event == "test_run" and phase is not None:
        check_test_run(data, phase)
    return data


# ---- the lifecycle (usage-lifecycle.md) ------------------------------------------------------

RESOURCE_PHASES = ("acquired", "released", "cleanup_failed")
TEST_RUN_PHASES = ("start", "case_start", "case_complete", "case_blocked", "complete")
CASE_PHASES = ("case_start", "case_complete", "case_blocked")
GUARDED = ("task_done", "done", "run_done")


def matches(data, key, pattern):
    value = data.get(key)
    return isinstance(value, str) and pattern.fullmatch(value) is not None


def resource_input_error(data, phase):  # R1-R4 (§1.2)
    if not isinstance(phase, str) or phase not in RESOURCE_PHASES:
        return "resource events require phase acquired, released, or cleanup_failed"
    if not matches(data, "resource_id", CALL_ID):
        return "resource events require a valid resource_id"
    if not matches(data, "resource_kind", IDENTIFIER):
        return "resource events require a valid resource_kind"
    if phase == "acquired" and data.get("cleanup_required") is not True:
        return "resource acquisition requires cleanup_required: true"
    return None


def test_run_input_error(data, phase):  # T1-T2 (§1.2)
    if not isinstance(phase, str) or phase not in TEST_RUN_PHASES:
        return "test_run events require phase start, case_start, case_complete, case_blocked, or complete"
    if phase in CASE_PHASES and not matches(data, "case_id", CALL_ID):
        return "test_run case events require a valid case_id"
    return None


def check_resource(data, phase):
    error = resource_input_error(data, phase)
    if error:
        raise Refused(error)


def check_test_run(data, phase):
    error = test_run_input_error(data, phase)
    if error:
        raise Refused(error)


class Unverifiable(Exception):
    """The authoritative log cannot be read strictly; the argument is the <ErrorType>."""


def strict_rows(path, run_id, event):
    """§2.2: every line of the file must be JSON; the rows of `run_id` and `event`."""
    try:
        if not path.is_file():
            return []
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        raise Unverifiable(type(error).__name__)
    except UnicodeDecodeError:
        raise Unverifiable("UnicodeDecodeError")
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()  # the terminator of the last line
    rows = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            raise Unverifiable("UsageError")
        if isinstance(row, dict) and row.get("run_id") == run_id and row.get("event") == event:
            rows.append(row)
    return rows


def apply_resource(state, phase, rid, kind):  # §2.3; returns the refusal or None
    if rid in state and state[rid][1] != kind:
        return "resource_kind does not match its acquisition"
    stored = state.get(rid, (None, None))[0]
    if phase == "acquired":
        if stored is None:
            state[rid] = ("acquired", kind)
            return None
        if stored == "acquired":
            return "active resource_id already has an acquisition; acquire a new resource_id"
        return "released resource_id cannot be reused; acquire a new resource_id"
    if stored is None:
        return "resource terminal phase has no acquisition"
    if stored == "released" and phase == "cleanup_failed":
        return "released resource cannot fail cleanup"
    state[rid] = (phase, kind)
    return None


def apply_test_run(state, phase, case_id):  # §2.4; state = [active, open cases]
    if phase == "start":
        if state[0]:
            return "test_run start has no preceding complete"
        if state[1]:
            return "test_run state contains cases without an active run"
        state[0] = True
    elif phase == "case_start":
        if not state[0]:
            return "test_run case_start has no active test run"
        if case_id in state[1]:
            return "test_run case already has an active case_start"
        state[1].add(case_id)
    elif phase in ("case_complete", "case_blocked"):
        if not state[0]:
            return "test_run case terminal phase has no active test run"
        if case_id not in state[1]:
            return "test_run case terminal phase has no case_start"
        state[1].discard(case_id)
    else:
        if not state[0]:
            return "test_run complete has no active test run"
        if state[1]:
            return "test_run complete has unfinished cases"
        state[0] = False
    return None


def resource_state(path, run_id):
    state = {}
    for row in strict_rows(path, run_id, "resource"):
        phase = row.get("phase")
        if resource_input_error(row, phase) or apply_resource(state, phase, row["resource_id"], row["resource_kind"]):
            raise Unverifiable("UsageError")
    return state


def test_run_state(path, run_id):
    state = [False, set()]
    for row in strict_rows(path, run_id, "test_run"):
        phase = row.get("phase")
        if phase is None:
            continue  # an unphased test_run is free-form
        if test_run_input_error(row, phase):
            raise Unverifiable("UsageError")
        if phase == "complete" and not state[0] and not state[1]:
            continue  # a historical standalone completion
        if apply_test_run(state, phase, row.get("case_id")):
            raise Unverifiable("UsageError")
    return state


def check_lifecycle(path, record):
    """§2.1 steps 2-8 against the authoritative log `path`."""
    event, phase, run_id = record["event"], record.get("phase"), record["run_id"]
    guarded = event in GUARDED
    if event not in ("resource", "test_run") and not guarded:
        return
    if any(r.get("event_id") == record["event_id"] for r in read_rows(path)):
        return  # an exact retry
    if event == "resource" or guarded:
        try:
            state = resource_state(path, run_id)
        except Unverifiable as error:
            raise Refused(f"resource state cannot be verified: {error}")
        if guarded:
            held = sorted(rid for rid, (p, _) in state.items() if p != "released")
            if held:
                raise Refused("completion blocked by unclosed resources: " + ", ".join(held))
        else:
            refusal = apply_resource(state, phase, record["resource_id"], record["resource_kind"])
            if refusal:
                raise Refused(refusal)
    if (event == "test_run" and phase is not None) or guarded:
        try:
            state = test_run_state(path, run_id)
        except Unverifiable as error:
            raise Refused(f"test_run state cannot be verified: {error}")
        if guarded:
            parts = (["active invocation"] if state[0] else []) + (
                ["open cases: " + ", ".join(sorted(state[1]))] if state[1] else [])
            if parts:
                raise Refused("completion blocked by incomplete test_run: " + "; ".join(parts))
        else:
            refusal = apply_test_run(state, phase, record.get("case_id"))
            if refusal:
                raise Refused(refusal)


def parse_at(text):
    if text is None:
        moment = datetime.datetime.now().astimezone()
    else:
        try:
            moment = datetime.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
        except ValueError:
            raise Refused("--at must be an ISO-8601 timestamp")
        if moment.tzinfo is None:
            raise Refused("--at must include a timezone offset")
    return moment.replace(microsecond=0).isoformat()


def existing_dir(flag, text):
    path = Path(text).expanduser().absolute().resolve()
    if not path.is_dir():
        raise Refused(f"{flag} must be an existing directory")
    return path


# ---- files (§2.3, §2.4) ------------------------------------------------------------------

def read_rows(path):
    """JSONL rows that are objects; blank, invalid and non-object lines are skipped."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.readlines()
    except OSError:
        return []
    rows = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def append_line(path, obj, mode):
    """One write with O_APPEND|O_CREAT|O_WRONLY, then fsync (§2.3)."""
    data = (compact(obj) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, mode)
    try:
        if os.write(fd, data) != len(data):
            raise OSError("short write")
        os.fsync(fd)
    finally:
        os.close(fd)


def private_dir(path):  # created 0700 and the mode re-applied on every write
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)


def lock(path, mode):
    """Exclusive BSD flock on the whole file, polled every 50 ms for 10 s (§2.4).

    The descriptor is deliberately kept open: the lock is held until the process exits."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, mode)
    if os.fstat(fd).st_size == 0:
        os.write(fd, b"0")
    deadline = time.monotonic() + 10
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise TimeoutError("lock timeout")
            time.sleep(0.05)


def write_pointer(path, pointer):
    """Replace the pointer atomically: temp `<name>.tmp.<pid>.<hex>` (0644), fsync, rename."""
    temp = path.with_name(f"{path.name}.tmp.{os.getpid()}.{secrets.token_hex(16)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, (compact(pointer) + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)


# ---- run selection (§2.6) and global file selection (§2.3) ---------------------------------

def run_states(rows):
    """(state per run id, the latest run id) from the project log."""
    states, latest = {}, None
    for row in rows:
        run_id, event = row.get("run_id"), row.get("event")
        if not (isinstance(run_id, str) and RUN_ID.fullmatch(run_id) and isinstance(event, str)):
            continue
        latest = run_id
        if event in TERMINAL:
            states[run_id] = "done"
        elif event == "run_start" or run_id not in states:
            states[run_id] = "running"
    return states, latest


def select_run(explicit, event, pointer, project_rows):
    """(run id, is this a new run)."""
    if explicit is not None:
        return explicit, event == "run_start"
    terminal = event in TERMINAL
    states, latest = run_states(project_rows)
    pointed = pointer.get("run_id") if pointer else None
    if isinstance(pointed, str) and RUN_ID.fullmatch(pointed):
        if pointer.get("status") == "running" and states.get(pointed) != "done":
            return pointed, False
        if pointer.get("status") == "done" and terminal:
            return pointed, False
    if latest is not None:
        if states[latest] == "running" or (states[latest] == "done" and terminal):
            return latest, False
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{now}-{uuid.uuid4().hex[:8]}", True


def global_file(home, run_id, at, pointer):
    runs = home / "runs"
    if pointer and pointer.get("run_id") == run_id and isinstance(pointer.get("global_log"), str):
        pointed = Path(pointer["global_log"]).resolve()
        if (pointed.parent.parent == runs and re.fullmatch(r"\d{4}-\d{2}", pointed.parent.name)
                and pointed.name == f"{run_id}.jsonl"):
            return pointed
    found = sorted(runs.glob(f"*/{run_id}.jsonl")) if runs.is_dir() else []
    if len(found) > 1:
        raise Refused(f"multiple global log files found for run_id {run_id}; repair the local mirror before continuing")
    if found:
        return found[0]
    return runs / at[:7] / f"{run_id}.jsonl"  # the month of `at` in its own offset


# ---- state checks (§2.8) --------------------------------------------------------------------

def identity(row):
    return tuple(str(row.get(field, "")) for field in IDENTITY)


def check_state(rows, record):
    event, run_id, call_id = record["event"], record["run_id"], record["call_id"]
    mine = [r for r in rows if r.get("run_id") == run_id and r.get("call_id") == call_id]
    usage = next((r for r in mine if r.get("event") == "model_usage"), None)
    claim = next((r for r in mine if r.get("event") == "model_call" and r.get("phase") == "claimed"), None)
    if event == "model_usage":
        if usage is not None and usage.get("event_id") != record["event_id"]:
            raise Refused("model_usage call_id already used with different payload")
        if record.get("adapter") == "openai-compatible" and claim is None:
            raise Refused("managed model_usage requires a prior model_call claim")
        if claim is not None and identity(claim) != identity(record):
            raise Refused("model_usage identity does not match model_call claim")
    else:
        if usage is not None:
            raise Refused("model_call call_id already completed")
        if claim is not None and claim.get("event_id") != record["event_id"]:
            raise Refused("model_call call_id already claimed with different payload")


# ---- the writer ----------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(prog=PROG)
    parser.add_argument("--workflow", required=True)
    parser.add_argument("--event", required=True)
    parser.add_argument("--phase")
    parser.add_argument("--runtime", required=True)
    parser.add_argument("--project")
    parser.add_argument("--project-root")
    parser.add_argument("--specs-dir")
    parser.add_argument("--run-id")
    parser.add_argument("--at")
    parser.add_argument("--detail", required=True)
    parser.add_argument("--data-json", default="{}")
    return parser.parse_args(argv)


def write(args):
    for flag, value in (("--workflow", args.workflow), ("--event", args.event), ("--phase", args.phase),
                        ("--runtime", args.runtime)):
        if value is not None:
            check_identifier(flag, value)
    if not args.detail.strip() or not one_line(args.detail, 500):
        raise Refused("--detail must be non-empty, one line and at most 500 characters")
    data = parse_data(args.data_json, args.event, args.phase)
    at = parse_at(args.at)
    root = existing_dir("--project-root", args.project_root) if args.project_root else None
    specs = existing_dir("--specs-dir", args.specs_dir) if args.specs_dir else None
    if args.project is not None and not one_line(args.project, 120):
        raise Refused("--project must be one line and at most 120 characters")
    project = args.project if args.project is not None else (root.name if root else "unscoped")
    if args.run_id is not None and not RUN_ID.fullmatch(args.run_id):
        raise Refused("invalid --run-id")
    raw_home = os.environ.get("CM_WORKFLOW_LOG_HOME")
    home = Path(raw_home if raw_home is not None else "~/.cm-workflow/logs").expanduser().absolute().resolve()

    # §2.4: the project lock first, then the global lock after creating the home (0700).
    if specs is not None:
        try:
            lock(specs / ".cm-run.lock", 0o666)  # "default" mode: 0666 minus the umask
        except OSError as error:
            raise Refused(f"project run lock failed: {type(error).__name__}", 1)
    try:
        private_dir(home)
        lock(home / ".cm-write.lock", 0o600)
    except OSError as error:
        if specs is None:
            raise Refused(f"global-only log lock failed: {type(error).__name__}", 1)
        raise Refused("reference writer: the degraded global mirror is not implemented", 1)
    hold = int(os.environ.get("REFERENCE_WRITER_HOLD_MS", "0"))
    if hold:
        if os.environ.get("REFERENCE_WRITER_HELD_FILE"):
            Path(os.environ["REFERENCE_WRITER_HELD_FILE"]).touch()
        time.sleep(hold / 1000)

    # §2.6 run selection.
    project_log = specs / PROJECT_LOG if specs is not None else None
    pointer_path = specs / ".cm-run.json" if specs is not None else None
    pointer = None
    if pointer_path is not None:
        try:
            pointer = json.loads(pointer_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pointer = None
        if not isinstance(pointer, dict):
            pointer = None
    project_rows = read_rows(project_log) if project_log is not None else []
    run_id, new_run = select_run(args.run_id, args.event, pointer, project_rows)

    # §2.9 record: envelope, optional fields, the data keys in input order, then the id.
    record = {"schema_version": 1, "run_id": run_id, "at": at, "workflow": args.workflow, "event": args.event,
              "runtime": args.runtime, "project": project, "detail": args.detail}
    if args.phase is not None:
        record["phase"] = args.phase
    if root is not None:
        record["project_path"] = str(root)
    if specs is not None:
        record["specs_path"] = str(specs)
    record.update(data)
    record["event_id"] = event_id_of(record)

    # §2.8 state checks against the authoritative log.
    run_file = None if specs is not None else global_file(home, run_id, at, None)
    check_lifecycle(project_log if specs is not None else run_file, record)
    if args.event in ("model_call", "model_usage"):
        check_state(project_rows if specs is not None else read_rows(run_file), record)

    # §2.9 step 1: the project log; a stored duplicate (with its original `at`) is mirrored.
    mirrored, deduplicated = record, False
    if project_log is not None:
        stored = next((r for r in project_rows if r.get("event_id") == record["event_id"]), None)
        if stored is not None:
            mirrored, deduplicated = stored, True
        else:
            try:
                append_line(project_log, record, 0o644)
            except OSError as error:
                raise Refused(f"authoritative project log write failed: {type(error).__name__}", 1)
        run_file = global_file(home, run_id, mirrored["at"], pointer)

    # §2.9 step 2: the private mirror: run file, then index rows.
    try:
        private_dir(home / "runs")
        private_dir(run_file.parent)
        present = any(r.get("event_id") == mirrored["event_id"] for r in read_rows(run_file))
        if not present:
            append_line(run_file, mirrored, 0o600)
        os.chmod(run_file, 0o600)
        if project_log is None:
            deduplicated = present
        index = home / "index.jsonl"
        statuses = {r.get("status") for r in read_rows(index) if r.get("run_id") == run_id}
        log_file = os.path.relpath(run_file, home)
        common = {"workflow": mirrored["workflow"], "runtime": mirrored["runtime"], "project": mirrored["project"]}
        if new_run and "running" not in statuses:
            append_line(index, {"schema_version": 1, "at": mirrored["at"], "run_id": run_id, "status": "running",
                                **common, "project_path": record.get("project_path"),
                                "specs_path": record.get("specs_path"), "log_file": log_file}, 0o600)
        if args.event in TERMINAL and "done" not in statuses:
            append_line(index, {"schema_version": 1, "at": mirrored["at"], "run_id": run_id, "status": "done",
                                **common, "log_file": log_file}, 0o600)
        if index.exists():
            os.chmod(index, 0o600)
    except OSError as error:
        if specs is None:
            raise Refused(f"global-only log write failed: {type(error).__name__}", 1)
        raise Refused("reference writer: the degraded global mirror is not implemented", 1)

    # §2.9 step 3: the active-run pointer.
    if pointer_path is not None:
        write_pointer(pointer_path, {"schema_version": 1, "run_id": run_id, "workflow": args.workflow,
                                     "status": "done" if args.event in TERMINAL else "running",
                                     "global_log": str(run_file), "global_written": True,
                                     "updated_at": mirrored["at"]})

    # §2.9 step 4: one ASCII-only line on stdout.
    print(json.dumps({"event_id": mirrored["event_id"], "run_id": run_id,
                      "project_log": str(project_log) if project_log is not None else None,
                      "global_log": str(run_file), "global_written": True,
                      "pointer_written": True if specs is not None else None,
                      "deduplicated": deduplicated, "degraded": False}, separators=(",", ":")))


def main(argv):
    args = parse_args(argv)
    try:
        write(args)
    except Refused as refusal:
        print(f"{PROG}: {refusal}", file=sys.stderr)
        return refusal.code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
