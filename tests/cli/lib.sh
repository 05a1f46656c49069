# Shared helpers of the CLI tests: run the real binary, capture stdout/stderr/exit code,
# and assert on them. Every failed assertion is counted; the script exits non-zero at the end.
set -u
failures=0
checks=0
WORK=$(mktemp -d /tmp/strata-cli-test.XXXXXX)
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT
# tests/support/study_payloads.py (the 128-task suite, repository and provider configs) for the
# tests' inline Python.
PYTHONPATH=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../support")${PYTHONPATH:+:$PYTHONPATH}
export PYTHONPATH

# python3 is the Debian interpreter scripts/setup.sh installs (with python3-jsonschema), called
# directly: a version manager's shim found first on PATH (pyenv's starts several shells a call)
# cost 0.1 s a call on a quiet machine and 3 s on a loaded one, and the tests make hundreds.
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
  mkdir -p "$WORK/.python"
  ln -s /usr/bin/python3 "$WORK/.python/python3"
  PATH=$WORK/.python:$PATH
fi

# few_descriptors_strata <strata binary> <wrapper>: writes <wrapper>, which runs the binary under
# ulimit -n 64 holding $INHERITED (default 0) more descriptors from its caller, descriptors the
# binary's --jobs budget cannot see.
few_descriptors_strata() {
  cat >"$2" <<SH
#!/usr/bin/env bash
for i in \$(seq \${INHERITED:-0}); do exec {fd}</dev/null; done
ulimit -n 64
exec "$1" "\$@"
SH
  chmod +x "$2"
}

# sanitized_build <binary>: true when it was built with AddressSanitizer or UBSan.
sanitized_build() { ldd "$1" 2>/dev/null | grep -q 'libasan\|libubsan'; }

# seal_study <dir>: seals the payloads a test wrote in <dir> (suite, plan, repos, providers
# .payload.json), the plan made to name the sealed suite's hash.
seal_study() {
  "$STRATA" seal task-suite "$1/suite.payload.json" -o "$1/suite.json" >/dev/null
  python3 -c "
import json, sys
p = json.load(open(sys.argv[1] + '/plan.payload.json'))
p['taskSuiteHash'] = json.load(open(sys.argv[1] + '/suite.json'))['contentHash']
json.dump(p, open(sys.argv[1] + '/plan.payload.json', 'w'))" "$1"
  "$STRATA" seal run-plan "$1/plan.payload.json" -o "$1/plan.json" >/dev/null
  "$STRATA" seal repository-config "$1/repos.payload.json" -o "$1/repos.json" >/dev/null
  "$STRATA" seal provider-config "$1/providers.payload.json" -o "$1/providers.json" >/dev/null
}

# run <args...>: runs $STRATA, leaving $OUT, $ERR, $CODE.
run() {
  "$STRATA" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  CODE=$?
  OUT=$(cat "$WORK/stdout")
  ERR=$(cat "$WORK/stderr")
}

fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
  echo "  exit=$CODE" >&2
  echo "  stdout: $(head -c 400 "$WORK/stdout")" >&2
  echo "  stderr: $(head -c 400 "$WORK/stderr")" >&2
}

expect_code() { checks=$((checks + 1)); [ "$CODE" = "$1" ] || fail "$2: expected exit $1"; }
expect_out() { checks=$((checks + 1)); [ "$OUT" = "$1" ] || fail "$2: stdout differs (expected: $1)"; }
expect_out_has() { checks=$((checks + 1)); grep -qF -- "$1" "$WORK/stdout" || fail "$2: stdout lacks '$1'"; }
expect_err_has() { checks=$((checks + 1)); grep -qF -- "$1" "$WORK/stderr" || fail "$2: stderr lacks '$1'"; }
expect_out_empty() { checks=$((checks + 1)); [ -z "$OUT" ] || fail "$1: stdout not empty"; }
expect_err_empty() { checks=$((checks + 1)); [ -z "$ERR" ] || fail "$1: stderr not empty"; }
expect_err_lines() { checks=$((checks + 1)); [ "$(wc -l <"$WORK/stderr")" = "$1" ] || fail "$2: expected $1 stderr line(s)"; }
expect_file_absent() { checks=$((checks + 1)); [ ! -e "$1" ] || fail "$2: $1 was written"; }
expect_true() { checks=$((checks + 1)); eval "$1" || fail "$2"; }

# bad_input <name> <expected stderr fragment> <args...>: exit 2, one line on stderr, nothing on stdout.
bad_input() {
  local name=$1 fragment=$2
  shift 2
  run "$@"
  expect_code 2 "$name"
  expect_err_has "$fragment" "$name"
  expect_err_lines 1 "$name"
  expect_out_empty "$name"
}

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
}

# make_example_study <provider binary> <run id suffix>...: the example study of examples/study
# in $WORK (suite.json, providers.json with the given provider, repos.json with an absolute
# root) and one sealed plan per suffix, $WORK/plan-<suffix>.json with runId append-<suffix>.
make_example_study() {
  local provider=$1 examples id
  shift
  examples=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../../examples/study")
  python3 - "$WORK" "$examples" "$provider" <<'PY'
import json, sys
work, examples, provider = sys.argv[1:4]
providers = json.load(open(f"{examples}/provider-config.payload.json"))
for p in providers["providers"]:
    p["command"] = provider
json.dump(providers, open(f"{work}/providers.payload.json", "w"))
repos = json.load(open(f"{examples}/repository-config.payload.json"))
for r in repos["repositories"]:
    r["root"] = f"{examples}/repository"
json.dump(repos, open(f"{work}/repos.payload.json", "w"))
PY
  "$STRATA" seal task-suite "$examples/task-suite.payload.json" -o "$WORK/suite.json" >/dev/null
  "$STRATA" seal provider-config "$WORK/providers.payload.json" -o "$WORK/providers.json" >/dev/null
  "$STRATA" seal repository-config "$WORK/repos.payload.json" -o "$WORK/repos.json" >/dev/null
  for id in "$@"; do
    python3 - "$examples/run-plan.payload.json" "$WORK/suite.json" "$id" "$WORK/plan-$id.payload.json" <<'PY'
import json, sys
plan_path, suite_path, run_id, out = sys.argv[1:5]
plan = json.load(open(plan_path))
plan["runId"] = f"append-{run_id}"
plan["taskSuiteHash"] = json.load(open(suite_path))["contentHash"]
json.dump(plan, open(out, "w"))
PY
    "$STRATA" seal run-plan "$WORK/plan-$id.payload.json" -o "$WORK/plan-$id.json" >/dev/null
  done
}

# failing_providers: after make_example_study, $WORK/failing (a provider that reads its request
# and exits 1), $WORK/failing.json (the study's providers all replaced by it) and
# $WORK/judge.json (the study's providers with it as the adjudicator: every judgement pending).
failing_providers() {
  printf '#!/usr/bin/env bash\ncat >/dev/null\nexit 1\n' >"$WORK/failing"
  chmod +x "$WORK/failing"
  python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
config = json.load(open(f"{work}/providers.payload.json"))
judged = json.loads(json.dumps(config))
for p in config["providers"]:
    p.update(command=f"{work}/failing", args=[])
json.dump(config, open(f"{work}/failing.payload.json", "w"))
judged["adjudicator"] = {"id": "unavailable-judge", "modelId": "reference-model", "command": f"{work}/failing", "args": [],
                         "providerNetwork": False, "maxInputBytes": 1000000, "maxOutputBytes": 10000}
json.dump(judged, open(f"{work}/judge.payload.json", "w"))
PY
  "$STRATA" seal provider-config "$WORK/failing.payload.json" -o "$WORK/failing.json" >/dev/null
  "$STRATA" seal provider-config "$WORK/judge.payload.json" -o "$WORK/judge.json" >/dev/null
}

# tamper_in_place <file> <text> <replacement of the same length>: changes the first occurrence in
# the file's own bytes (same inode, same size) and restores its modification time, so that only
# the change time and the content tell.
tamper_in_place() {
  touch -r "$1" "$WORK/.tamper-stamp"
  python3 - "$@" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
assert len(old) == len(new)
data = open(path, "rb").read()
at = data.index(old)
open(path, "r+b").write(data[:at] + new + data[at + len(old):])
PY
  touch -r "$WORK/.tamper-stamp" "$1"
}

# fixture_repositories: empty roots for the fixture suite's six repositories ($WORK/repos/<id>),
# their config payload $WORK/repos.payload.json and the sealed $WORK/repos.json.
fixture_repositories() {
  python3 -c 'import sys; from study_payloads import FIXTURE_REPOSITORIES, write_repository_config
write_repository_config(sys.argv[1] + "/repos", FIXTURE_REPOSITORIES, sys.argv[1] + "/repos.payload.json")' "$WORK"
  "$STRATA" seal repository-config "$WORK/repos.payload.json" -o "$WORK/repos.json" >/dev/null
}

# study_run <plan suffix> <ledger> [more run args]: `strata run` of make_example_study's study.
study_run() {
  local plan=$1 ledger=$2
  shift 2
  run run "$WORK/plan-$plan.json" "$WORK/suite.json" --providers "$WORK/providers.json" \
    --repositories "$WORK/repos.json" --ledger "$ledger" --jobs "${JOBS:-4}" --text "$@"
}

# ledger_counts <ledger>: "<runId>=<observations> ... max-repeat=<most times one execution occurs>".
ledger_counts() {
  python3 - "$1" <<'PY'
import collections, json, sys
observations = json.load(open(sys.argv[1]))["observations"]
keys = collections.Counter((o["runId"], json.dumps(o["task"], sort_keys=True)) for o in observations)
runs = collections.Counter(o["runId"] for o in observations)
print(" ".join(f"{r}={n}" for r, n in sorted(runs.items())), "max-repeat=%d" % max(keys.values(), default=0))
PY
}

# start_test_server <strata-test-server binary>: the test HTTPS server on loopback for the rest of
# the script (it stops when the script exits), with $PORT, $CA, SSL_CERT_FILE, and control <method>
# <name> [curl args] / fault <name> for its control endpoints.
start_test_server() {
  mkfifo "$WORK/server.ctl"
  "$1" "$WORK/certs" <"$WORK/server.ctl" >"$WORK/server.info" &
  SERVER_PID=$!
  exec 3>"$WORK/server.ctl"
  for _ in $(seq 50); do [ -s "$WORK/server.info" ] && break; sleep 0.1; done
  read -r PORT CA <"$WORK/server.info"
  trap 'exec 3>&-; wait $SERVER_PID 2>/dev/null; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
  export SSL_CERT_FILE=$CA
}
control() { curl -s --cacert "$CA" -X "$1" "https://127.0.0.1:$PORT/__$2" "${@:3}"; }
fault() { control POST "fault/$1" >/dev/null; }

# endpoint_study <config> <out> [name=value...]: writes to <out> the payload of the provider config
# <config> (sealed or not) with every provider entry calling the test endpoint instead of a command:
# no command or args, providerNetwork, the test pricing, and the endpoint
# {"protocol": "openai-chat-completions", "baseUrlEnv": "STUDY_BASE_URL", "apiKeyEnv": "STUDY_API_KEY",
# "model": "test-model", "parameters": {"temperature": 0}, "maxConcurrency": 3}. only=<modelId>
# converts that model's entries only; judge=<id> leaves the entries and makes the adjudicator the
# endpoint judge <id> (model judge-model-1) instead; pricing= and envAllowlist= leave those members
# out; any other name sets that endpoint member (a JSON value, else a string; empty: removes it).
endpoint_study() {
  python3 - "$@" <<'PY'
import json, sys
source, out, settings = sys.argv[1], sys.argv[2], dict(a.split("=", 1) for a in sys.argv[3:])
def value(text):
    try:
        return json.loads(text)
    except ValueError:
        return text
only, judge = settings.pop("only", None), settings.pop("judge", None)
pricing = settings.pop("pricing", '{"currency": "USD", "inputPerMillionUsd": 1, "cachedInputPerMillionUsd": 0.1, '
                                  '"outputPerMillionUsd": 2}')
dropped = ("command", "args") + (("envAllowlist",) if settings.pop("envAllowlist", None) == "" else ())
endpoint = {"protocol": "openai-chat-completions", "baseUrlEnv": "STUDY_BASE_URL", "apiKeyEnv": "STUDY_API_KEY",
            "model": "test-model", "parameters": {"temperature": 0}, "maxConcurrency": 3}
for name, text in settings.items():
    if text:
        endpoint[name] = value(text)
    else:
        endpoint.pop(name, None)
config = json.load(open(source))
for k in ("contentHash", "contentHashAlgo"):
    config.pop(k, None)
if judge:
    config["adjudicator"] = {"id": judge, "modelId": "judge-model", "providerNetwork": True,
                             "maxInputBytes": 1000000, "maxOutputBytes": 65536,
                             "endpoint": dict(endpoint, model="judge-model-1")}
else:
    for p in config["providers"]:
        if only in (None, p["modelId"]):
            for k in dropped:
                p.pop(k, None)
            p["providerNetwork"] = True
            if pricing:
                p["pricing"] = value(pricing)
            p["endpoint"] = dict(endpoint)
json.dump(config, open(out, "w"))
PY
}
