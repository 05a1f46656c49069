#!/usr/bin/env bash
# Endpoint call benchmark: strata's HTTPS calls to an OpenAI-compatible endpoint vs wrk (the
# server's limit) and vs the Node.js `openai` package, side by side against one test server.
# Usage: scripts/bench/http.sh [build-dir=build] [calls=10000]
#   ROUNDS=n (default 3), WRK_SECONDS=s (default 10), OPENAI_VERSION=v (default 6.49.0, the last
#   release whose package.json allows Node 20; 7.x needs Node >= 22), KEEP_BENCH_DIR=1 keeps the
#   temporary directory.
#
#   The server is tests/support's strata-test-server (<build>/tests/strata-test-server): Beast over
#   OpenSSL on 127.0.0.1, one thread, HTTP/1.1 keep-alive, test-time certificates, answering every
#   POST with a fixed chat completion whose text is a valid adjudicator response
#   ({"outcome":"success","confidence":0.9,"reasonCodes":["checks-passed"]}, set with POST /__reply).
#   All three clients talk TLS to that one server process, which runs for the whole benchmark.
#
#   strata: `strata adjudicate` of a <calls>-observation ledger (scripts/bench/make-ledger.mjs,
#   cached in ${TMPDIR:-/tmp}/strata-bench as for adjudicate.sh), every observation selected,
#   --jobs 128, with an endpoint adjudicator (docs/ENDPOINTS.md) of maxConcurrency 128: one
#   POST <base>/chat/completions per observation, TLS verified against the test CA (SSL_CERT_FILE).
#   The wall is the whole command, so it includes loading and checking the 24 MiB ledger and
#   sealing and writing the output; the same command with --limit 1 (one call) is measured in
#   every round as the fixed cost. Requests/s gross = calls / wall; net = (calls - 1) /
#   (wall - fixed wall). Each run writes a fresh output (no journal to reuse).
#   wrk: `wrk -t2 -c128 -d<WRK_SECONDS>s -s http-post.lua https://127.0.0.1:<port>/v1/chat/completions`,
#   POSTing a real request body captured from strata (below); requests/s as wrk reports it. wrk
#   VERIFIES NOTHING in TLS (no chain, no host name): the script proves it by pointing wrk at a
#   second server whose certificate is signed by an unknown CA (curl refuses it, wrk gets answers).
#   So wrk is a baseline without certificate checks and without any processing of the answers.
#   openai: scripts/bench/openai-client.mjs, the official `openai` npm package (installed with npm
#   into the temporary directory), <calls> chat.completions.create calls with the captured body's
#   model and messages, 128 in flight (a promise pool of 128 workers), maxRetries 0, TLS verified
#   against the test CA (NODE_EXTRA_CA_CERTS). Gross = calls / the whole node process's wall;
#   net = calls / the time from its first request to its last answer (module loading excluded).
#
#   The request body: strata adjudicate --limit 1 is pointed once (plain HTTP, allowed to
#   loopback) at a one-shot Node capture server, which saves the body strata sends (about 4 KB:
#   the adjudicator's system prefix and the anonymised observation); wrk posts those bytes and the
#   openai client sends the same model and messages.
#
#   Rounds: ROUNDS rounds; the order alternates (odd rounds: strata --limit 1, strata, wrk, openai;
#   even rounds: the reverse); medians are reported. Peak RSS = /usr/bin/time -f %M (strata reads
#   the input ledger and writes the output an observation at a time; the --limit 1 row is its
#   fixed part); CPU = user + sys of the client; server CPU = the server's utime + stime
#   during the run (/proc/<pid>/stat); TLS connections = connections the server accepted during
#   the run (each one a full handshake; the script's control requests excluded).
#   Checked outside the timings: strata exits 0, the server saw the calls, the output ledger has
#   <calls> observations each judged by the endpoint adjudicator (`strata verify` on the first
#   round's), the checkpoint journal was emptied; openai: <calls> successful responses with the
#   expected text; wrk: no non-2xx answers.
#   The machine is shared: the load average at start and end is printed with the tables.
set -euo pipefail

cd "$(dirname "$0")/../.."  # repo root
build=${1:-build}
calls=${2:-10000}
rounds=${ROUNDS:-3}
wrk_seconds=${WRK_SECONDS:-10}
openai_version=${OPENAI_VERSION:-6.49.0}
jobs=128
reply='{"outcome":"success","confidence":0.9,"reasonCodes":["checks-passed"]}'

if ! command -v wrk >/dev/null; then
  echo "wrk is not installed. Install it with:  apt-get install -y wrk" >&2
  exit 1
fi
for tool in node npm python3 curl /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done
[ -x "$build/strata" ] || { echo "strata binary not found: $build/strata (build it first)" >&2; exit 1; }
[ -x "$build/tests/strata-test-server" ] ||
  { echo "test server not found: $build/tests/strata-test-server (build it first)" >&2; exit 1; }
FIX=${STRATA_FIXTURES:-$(realpath -m ../shared/fixtures/doc-bridge)}  # the checkout's sibling shared/, or $STRATA_FIXTURES
[ -f "$FIX/task-suite-v1.json" ] || { echo "doc-bridge fixtures not found in $FIX (set STRATA_FIXTURES)" >&2; exit 1; }
suite=$FIX/task-suite-v1.json
bench_start=$(date +%s%N)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

T=$(mktemp -d "${TMPDIR:-/tmp}/strata-http-bench.XXXXXX")
server_pid='' untrusted_pid='' capture_pid=''
cleanup() {
  [ -z "$capture_pid" ] || kill "$capture_pid" 2>/dev/null || true
  exec 3>&- 4>&-  # the servers serve until their stdin closes
  [ -z "$server_pid" ] || wait "$server_pid" 2>/dev/null || true
  [ -z "$untrusted_pid" ] || wait "$untrusted_pid" 2>/dev/null || true
  [ -n "${KEEP_BENCH_DIR:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
# Private copies, so a rebuild in the middle of the benchmark cannot swap a binary under it.
cp "$build/strata" "$T/strata"
cp "$build/tests/strata-test-server" "$T/strata-test-server"
strata=$T/strata
"$strata" --help >/dev/null 2>&1 || { echo "$build/strata does not run (being rebuilt?)" >&2; exit 1; }
cache=${TMPDIR:-/tmp}/strata-bench
mkdir -p "$cache"

log() { echo "[bench] $*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }
now_ns() { date +%s%N; }
secs() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }  # ns -> s
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }  # KB -> MiB
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
all_secs() { local v out=(); for v in "$@"; do out+=("$(secs "$v")"); done; echo "${out[*]}"; }
# verdict <a> <b> <ge|le> <target>: whether a / b (unrounded) meets the target.
verdict() { awk -v a="$1" -v b="$2" -v op="$3" -v t="$4" 'BEGIN { v = a / b; ok = op == "ge" ? v >= t : v <= t; print ok ? "met" : "MISSED" }'; }

# --- the test server ---------------------------------------------------------------------------
# start_server <name> <fd> [identity]: runs strata-test-server with its stdin on a FIFO held open
# on file descriptor <fd>; sets <name>_pid, <name>_port, <name>_ca.
start_server() {
  local name=$1 fd=$2 pid port ca
  mkfifo "$T/$name.ctl"
  "$T/strata-test-server" "$T/certs-$name" ${3:+"$3"} <"$T/$name.ctl" >"$T/$name.info" 2>"$T/$name.err" &
  pid=$!
  eval "exec $fd>\"\$T/\$name.ctl\""
  for _ in $(seq 100); do [ -s "$T/$name.info" ] && break; sleep 0.1; done
  read -r port ca <"$T/$name.info" || die "the test server did not start: $(cat "$T/$name.err")"
  printf -v "${name}_pid" '%s' "$pid"
  printf -v "${name}_port" '%s' "$port"
  printf -v "${name}_ca" '%s' "$ca"
}
start_server server 3
# shellcheck disable=SC2154  # server_port and server_ca are set by start_server (printf -v)
PORT=$server_port CA=$server_ca
control() { curl -sf --cacert "$CA" -X "$1" "https://127.0.0.1:$PORT/__$2" "${@:3}"; }
# server_stats: "<requests> <connections>" so far (model requests; every connection, this one included).
# The echo adds the newline the server's answer lacks, so `read` succeeds.
# shellcheck disable=SC2005
server_stats() { echo "$(control GET stats | sed -E 's/.*"requests":([0-9]+),"connections":([0-9]+).*/\1 \2/')"; }
# since <requests> <connections>: what the server saw since server_stats printed those, less this
# call's own connection: "<requests> <connections>".
since() { local r c; read -r r c < <(server_stats); echo "$((r - $1)) $((c - $2 - 1))"; }
server_ticks() { awk '{ print $14 + $15 }' "/proc/$server_pid/stat"; }
clk_tck=$(getconf CLK_TCK)
control POST reply --data-binary "$reply" >/dev/null || die "cannot reach the test server"
control POST fault/ok >/dev/null

# --- the ledger and the endpoint adjudicator ------------------------------------------------------
ledger=$cache/ledger-$calls.json
if [ ! -s "$ledger" ] || [ scripts/bench/make-ledger.mjs -nt "$ledger" ]; then
  log "generating $ledger ..."
  node scripts/bench/make-ledger.mjs "$calls" "$ledger.partial.$$"
  mv "$ledger.partial.$$" "$ledger"  # only a complete file is ever reused
fi
"$strata" verify "$ledger" >/dev/null || die "$ledger does not verify"

python3 - "$T" "$jobs" <<'PY'
import json, sys
T, jobs = sys.argv[1], int(sys.argv[2])
json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
           "providers": [{"modelId": "low-cost-model", "scenarioIds": ["repository-only"], "command": "true",
                          "providerNetwork": False, "maxInputBytes": 1000, "maxOutputBytes": 1000}],
           "adjudicator": {"id": "endpoint-judge", "modelId": "judge-model", "providerNetwork": True,
                           "maxInputBytes": 1000000, "maxOutputBytes": 65536,
                           "endpoint": {"protocol": "openai-chat-completions", "baseUrlEnv": "STUDY_BASE_URL",
                                        "apiKeyEnv": "STUDY_API_KEY", "model": "judge-model-1",
                                        "maxConcurrency": jobs}}},
          open(f"{T}/judge.payload.json", "w"))
PY
"$strata" seal provider-config "$T/judge.payload.json" -o "$T/judge.json" >/dev/null

# --- a real request body: strata --limit 1 against a one-shot plain-HTTP loopback server ----------
cat >"$T/capture.mjs" <<'JS'
// Saves the body of the first request, answers a chat completion with argv[4] as the text, exits.
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
const [portFile, bodyFile, reply] = process.argv.slice(2);
const answer = JSON.stringify({ id: "chatcmpl-capture", object: "chat.completion", model: "judge-model-1",
  choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }],
  usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    writeFileSync(bodyFile, Buffer.concat(chunks));
    res.on("finish", () => process.exit(0));
    res.writeHead(200, { "content-type": "application/json" }).end(answer);
  });
});
server.listen(0, "127.0.0.1", () => writeFileSync(portFile, String(server.address().port)));
setTimeout(() => process.exit(3), 60_000).unref();
JS
node "$T/capture.mjs" "$T/capture.port" "$T/request.json" "$reply" &
capture_pid=$!
for _ in $(seq 100); do [ -s "$T/capture.port" ] && break; sleep 0.1; done
[ -s "$T/capture.port" ] || die "the capture server did not start"
STUDY_BASE_URL="http://127.0.0.1:$(cat "$T/capture.port")/v1" STUDY_API_KEY=sk-bench \
  "$strata" adjudicate "$ledger" "$suite" --adjudicator "$T/judge.json" --output "$T/capture-out.json" --limit 1 \
  --jobs 1 --text >/dev/null 2>"$T/capture.err" || die "strata adjudicate against the capture server failed: $(head -c 400 "$T/capture.err")"
wait "$capture_pid" || die "the capture server saw no request"
capture_pid=''
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["messages"] and r["model"] == "judge-model-1", r' \
  "$T/request.json" || die "the captured request is not a chat completion request"
request_bytes=$(stat -c %s "$T/request.json")
request_shape=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(", ".join("%s %d chars" % (m["role"], len(m["content"])) for m in r["messages"]))' "$T/request.json")
log "captured request: $request_bytes bytes ($request_shape)"

# --- wrk's TLS: does it verify anything? -----------------------------------------------------------
cp scripts/bench/http-post.lua "$T/post.lua"
start_server untrusted 4 untrusted
# shellcheck disable=SC2154  # set by start_server
if curl -sf --cacert "$CA" -X POST "https://127.0.0.1:$untrusted_port/v1/chat/completions" -d '{}' >/dev/null 2>&1; then
  die "curl accepted the untrusted server's certificate: the TLS check proves nothing"
fi
WRK_BODY=$T/request.json wrk -t1 -c1 -d1s -s "$T/post.lua" "https://127.0.0.1:$untrusted_port/v1/chat/completions" >"$T/wrk-tls.out" 2>&1 || true
wrk_untrusted=$(awk '/requests in/ { print $1 }' "$T/wrk-tls.out")
exec 4>&-
wait "$untrusted_pid" 2>/dev/null || true
untrusted_pid=''
if [ "${wrk_untrusted:-0}" -gt 0 ]; then
  wrk_tls="wrk verifies nothing: against a server whose certificate is signed by an unknown CA (refused by curl) it completed $wrk_untrusted requests in 1 s."
else
  wrk_tls="wrk completed no request against a server with an untrusted certificate: $(tr '\n' ' ' <"$T/wrk-tls.out" | head -c 300)"
fi
log "$wrk_tls"

# --- the openai client ------------------------------------------------------------------------------
log "npm install openai@$openai_version"
mkdir -p "$T/node"
npm install --prefix "$T/node" --no-audit --no-fund --no-package-lock --loglevel=error "openai@$openai_version" >"$T/npm.log" 2>&1 ||
  die "npm install openai@$openai_version failed: $(tail -c 400 "$T/npm.log")"
cp scripts/bench/openai-client.mjs "$T/node/openai-client.mjs"  # resolves `openai` from $T/node/node_modules
NODE_EXTRA_CA_CERTS=$CA node "$T/node/openai-client.mjs" "https://127.0.0.1:$PORT/v1" 4 4 "$T/request.json" "$reply" \
  >"$T/node.out" 2>"$T/node.err" || die "the openai client failed a 4-call trial: $(cat "$T/node.out" "$T/node.err" | head -c 400)"
openai_installed=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$T/node.out")

# --- one run of each client --------------------------------------------------------------------------
# strata_run <output> [more args]: prints "<wall ns> <peak RSS KB> <CPU s> <server CPU ticks> <server requests>
# <server connections>" (the last three: what the server saw during the run).
strata_run() {
  local out=$1 req0 tick0 con0 start end kb user sys
  shift
  rm -f "$out" "$out".*
  read -r req0 con0 < <(server_stats)
  tick0=$(server_ticks)
  start=$(now_ns)
  SSL_CERT_FILE=$CA STUDY_BASE_URL="https://127.0.0.1:$PORT/v1" STUDY_API_KEY=sk-bench \
    /usr/bin/time -f '%M %U %S' -o "$T/time" "$strata" adjudicate "$ledger" "$suite" --adjudicator "$T/judge.json" \
    --output "$out" --jobs "$jobs" "$@" --text >"$T/stdout" 2>"$T/stderr" ||
    die "strata adjudicate $* failed: $(head -c 400 "$T/stderr")"
  end=$(now_ns)
  grep -qx "Adjudicated observations: $calls" "$T/stdout" || die "unexpected strata output: $(cat "$T/stdout")"
  read -r kb user sys <"$T/time"
  echo "$((end - start)) $kb $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $(($(server_ticks) - tick0)) $(since "$req0" "$con0")"
}

# strata_check <output> <judged>: the first <judged> observations carry the endpoint judge's
# verdict with their execution and task unchanged, the rest are the input's; journal emptied.
strata_check() {
  python3 - "$1" "$2" "$ledger" <<'PY' || die "output check failed: $1"
import json, sys
out, judged, source = sys.argv[1], int(sys.argv[2]), sys.argv[3]
a = json.load(open(source))["observations"]
b = json.load(open(out))["observations"]
assert len(a) == len(b), (len(a), len(b))
for i, (x, y) in enumerate(zip(a, b)):
    if i < judged:
        adj = y["adjudication"]
        assert (adj["status"], adj["actor"], adj["method"], adj["outcome"], adj["reasonCodes"]) == \
            ("automated", "endpoint-judge", "independent-rubric-v1", "success", ["checks-passed"]), (i, adj)
        assert x["execution"] == y["execution"] and x["task"] == y["task"], i
    else:
        assert x == y, i
PY
  [ ! -s "$1.adjudication-journal" ] || die "journal not emptied: $1"
}

# wrk_run: prints "<requests/s> <requests> <peak RSS KB> <CPU s> <server CPU ticks> <server requests> <server connections>".
wrk_run() {
  local req0 tick0 con0 kb user sys n rps
  read -r req0 con0 < <(server_stats)
  tick0=$(server_ticks)
  WRK_BODY=$T/request.json /usr/bin/time -f '%M %U %S' -o "$T/time" \
    wrk -t2 -c"$jobs" -d"${wrk_seconds}s" -s "$T/post.lua" "https://127.0.0.1:$PORT/v1/chat/completions" >"$T/wrk.out" 2>&1 ||
    die "wrk failed: $(head -c 400 "$T/wrk.out")"
  n=$(awk '/requests in/ { print $1 }' "$T/wrk.out")
  rps=$(awk '/^Requests\/sec:/ { print $2 }' "$T/wrk.out")
  { [ -n "$n" ] && [ -n "$rps" ]; } || die "cannot read wrk's output: $(cat "$T/wrk.out")"
  ! grep -q 'Non-2xx' "$T/wrk.out" || die "wrk got non-2xx answers: $(cat "$T/wrk.out")"
  if grep -q 'Socket errors' "$T/wrk.out"; then log "wrk: $(grep 'Socket errors' "$T/wrk.out")"; fi
  read -r kb user sys <"$T/time"
  echo "$rps $n $kb $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $(($(server_ticks) - tick0)) $(since "$req0" "$con0")"
}

# node_run: prints "<wall ns> <loop s> <peak RSS KB> <CPU s> <server CPU ticks> <server requests> <server connections>".
node_run() {
  local req0 tick0 con0 start end kb user sys
  read -r req0 con0 < <(server_stats)
  tick0=$(server_ticks)
  start=$(now_ns)
  NODE_EXTRA_CA_CERTS=$CA /usr/bin/time -f '%M %U %S' -o "$T/time" node "$T/node/openai-client.mjs" \
    "https://127.0.0.1:$PORT/v1" "$calls" "$jobs" "$T/request.json" "$reply" >"$T/node.out" 2>"$T/node.err" ||
    die "the openai client failed: $(cat "$T/node.out" "$T/node.err" | head -c 400)"
  end=$(now_ns)
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert (r["ok"], r["failed"]) == (int(sys.argv[2]), 0), r' \
    "$T/node.out" "$calls" || die "openai client: not $calls successful responses: $(cat "$T/node.out")"
  read -r kb user sys <"$T/time"
  echo "$((end - start)) $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["loopSeconds"])' "$T/node.out") $kb $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $(($(server_ticks) - tick0)) $(since "$req0" "$con0")"
}

# --- the rounds -----------------------------------------------------------------------------------------
s_wall=() s_kb=() s_cpu=() s_srv=() s_con=() f_con=() f_wall=() f_kb=() f_cpu=()
w_rps=() w_n=() w_kb=() w_cpu=() w_srv=() w_con=() n_wall=() n_loop=() n_kb=() n_cpu=() n_srv=() n_con=()
for r in $(seq "$rounds"); do
  if ((r % 2)); then order="fixed strata wrk openai"; else order="openai wrk strata fixed"; fi
  for what in $order; do
    log "round $r/$rounds: $what (load $(cut -d' ' -f1 /proc/loadavg))"
    case $what in
      fixed)
        read -r ns kb cpu stick sreq scon < <(strata_run "$T/fixed.json" --limit 1)
        [ "$sreq" -ge 1 ] || die "strata --limit 1: the server saw $sreq requests"
        strata_check "$T/fixed.json" 1
        f_wall+=("$ns") f_kb+=("$kb") f_cpu+=("$cpu") f_con+=("$scon") ;;
      strata)
        read -r ns kb cpu stick sreq scon < <(strata_run "$T/out.json")
        [ "$sreq" -ge "$calls" ] || die "strata: the server saw $sreq requests, not $calls"
        strata_check "$T/out.json" "$calls"
        [ "$r" != 1 ] || "$strata" verify "$T/out.json" >/dev/null || die "the output ledger does not verify"
        s_wall+=("$ns") s_kb+=("$kb") s_cpu+=("$cpu") s_srv+=("$stick") s_con+=("$scon") ;;
      wrk)
        read -r rps n kb cpu stick sreq scon < <(wrk_run)
        w_rps+=("$rps") w_n+=("$n") w_kb+=("$kb") w_cpu+=("$cpu") w_srv+=("$stick") w_con+=("$scon") ;;
      openai)
        read -r ns loop kb cpu stick sreq scon < <(node_run)
        [ "$sreq" -ge "$calls" ] || die "openai: the server saw $sreq requests, not $calls"
        n_wall+=("$ns") n_loop+=("$loop") n_kb+=("$kb") n_cpu+=("$cpu") n_srv+=("$stick") n_con+=("$scon") ;;
    esac
  done
done

# --- the tables ------------------------------------------------------------------------------------------
s_med=$(median "${s_wall[@]}") f_med=$(median "${f_wall[@]}") n_med=$(median "${n_wall[@]}") nl_med=$(median "${n_loop[@]}")
s_gross=$(awk -v n="$calls" -v t="$s_med" 'BEGIN { printf "%.0f", n / (t / 1e9) }')
s_net=$(awk -v n="$calls" -v t="$s_med" -v f="$f_med" 'BEGIN { printf "%.0f", (n - 1) / ((t - f) / 1e9) }')
w_med=$(median "${w_rps[@]}")
n_gross=$(awk -v n="$calls" -v t="$n_med" 'BEGIN { printf "%.0f", n / (t / 1e9) }')
n_net=$(awk -v n="$calls" -v t="$nl_med" 'BEGIN { printf "%.0f", n / t }')
s_kbm=$(median "${s_kb[@]}") f_kbm=$(median "${f_kb[@]}") n_kbm=$(median "${n_kb[@]}")
srv() { awk -v t="$(median "$@")" -v c="$clk_tck" 'BEGIN { printf "%.2f", t / c }'; }
cpu_ms() { awk -v c="$1" -v n="$2" 'BEGIN { printf "%.3f", c * 1000 / n }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f%%", 100 * a / b }'; }

echo "# Endpoint calls: strata vs wrk vs the openai npm package"
echo
echo "strata: $build/strata (built $(date -r "$build/strata" '+%F %T'), tree $(git describe --always --dirty 2>/dev/null || echo unknown)); $(wrk --version 2>&1 | head -n 1 | cut -d' ' -f1-2); node $(node --version), openai $openai_installed. $(nproc) cores. Load at start: $load_start."
echo "Server: strata-test-server (one thread, TLS, keep-alive). Request body: $request_bytes bytes captured from strata ($request_shape). $rounds rounds, alternating order, medians."
echo
echo "## (a) $calls endpoint calls by strata at --jobs 128 vs wrk -c128 (the server's limit)"
echo
echo "| Client | Requests | Median wall (s) | Requests/s | vs wrk | CPU user+sys (s) | Server CPU (s) | TLS connections | All rounds |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
echo "| \`strata adjudicate --jobs $jobs\`, endpoint judge maxConcurrency $jobs: gross (whole command) | $calls | $(secs "$s_med") | $s_gross | **$(ratio "$s_gross" "$w_med")x** | $(median "${s_cpu[@]}") | $(srv "${s_srv[@]}") | $(median "${s_con[@]}") | $(all_secs "${s_wall[@]}") s |"
echo "| same, net of the fixed cost: ($calls - 1) / (wall - \`--limit 1\` wall) | $((calls - 1)) | $(awk -v t="$s_med" -v f="$f_med" 'BEGIN { printf "%.3f", (t - f) / 1e9 }') | $s_net | **$(ratio "$s_net" "$w_med")x** | | | | |"
echo "| \`strata adjudicate --limit 1\` (fixed cost: load and check the ledger, 1 call, seal and write the output) | 1 | $(secs "$f_med") | - | - | $(median "${f_cpu[@]}") | - | $(median "${f_con[@]}") | $(all_secs "${f_wall[@]}") s |"
echo "| \`wrk -t2 -c$jobs -d${wrk_seconds}s\` POST of the captured body | $(median "${w_n[@]}") | $wrk_seconds | $(printf '%.0f' "$w_med") | 1.00x | $(median "${w_cpu[@]}") | $(srv "${w_srv[@]}") | $(median "${w_con[@]}") | ${w_rps[*]} req/s |"
echo
echo "Target: strata >= 50% of wrk's requests/s. Gross: $(pct "$s_gross" "$w_med") ($(verdict "$s_gross" "$w_med" ge 0.5)); net of the fixed cost: $(pct "$s_net" "$w_med") ($(verdict "$s_net" "$w_med" ge 0.5))."
echo "$wrk_tls strata and openai verify the chain and the host name against the test CA."
echo "CPU per call: strata $(cpu_ms "$(median "${s_cpu[@]}")" "$calls") ms (whole command), wrk $(cpu_ms "$(median "${w_cpu[@]}")" "$(median "${w_n[@]}")") ms; server $(awk -v t="$(median "${s_srv[@]}")" -v n="$calls" -v c="$clk_tck" 'BEGIN { printf "%.3f", t / c * 1000 / n }') ms per strata call, $(awk -v t="$(median "${w_srv[@]}")" -v n="$(median "${w_n[@]}")" -v c="$clk_tck" 'BEGIN { printf "%.3f", t / c * 1000 / n }') ms per wrk call."
echo
echo "## (b) $calls endpoint calls by strata vs the openai npm package, $jobs in flight"
echo
echo "| Client | Calls | Median wall (s) | Calls/s | Throughput vs openai | Peak RSS (MiB, median) | RSS vs openai | CPU user+sys (s) | TLS connections | All rounds |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
echo "| \`strata adjudicate --jobs $jobs\`: gross (whole command) | $calls | $(secs "$s_med") | $s_gross | **$(ratio "$s_gross" "$n_gross")x** | $(mib "$s_kbm") | **$(ratio "$s_kbm" "$n_kbm")x** | $(median "${s_cpu[@]}") | $(median "${s_con[@]}") | $(all_secs "${s_wall[@]}") s |"
echo "| same, net of the fixed cost | $((calls - 1)) | $(awk -v t="$s_med" -v f="$f_med" 'BEGIN { printf "%.3f", (t - f) / 1e9 }') | $s_net | $(ratio "$s_net" "$n_net")x (net vs net) | | | | | |"
echo "| \`strata adjudicate --limit 1\` (fixed cost: the ledger read and checked an observation at a time, one call) | 1 | $(secs "$f_med") | - | - | $(mib "$f_kbm") | $(ratio "$f_kbm" "$n_kbm")x | $(median "${f_cpu[@]}") | $(median "${f_con[@]}") | $(all_secs "${f_wall[@]}") s |"
echo "| node + openai@$openai_installed, promise pool of $jobs: gross (whole process) | $calls | $(secs "$n_med") | $n_gross | 1.00x | $(mib "$n_kbm") | 1.00x | $(median "${n_cpu[@]}") | $(median "${n_con[@]}") | $(all_secs "${n_wall[@]}") s |"
echo "| same, net: first request to last answer | $calls | $(printf '%.3f' "$nl_med") | $n_net | 1.00x | | | | | ${n_loop[*]} s |"
echo
echo "Targets: strata >= 2x openai's throughput: gross $(ratio "$s_gross" "$n_gross")x ($(verdict "$s_gross" "$n_gross" ge 2)), net $(ratio "$s_net" "$n_net")x ($(verdict "$s_net" "$n_net" ge 2)); at <= 1/4 of its peak RSS: $(ratio "$s_kbm" "$n_kbm")x ($(verdict "$s_kbm" "$n_kbm" le 0.25))."
echo "strata's peak RSS above its --limit 1 run (the same ledger loaded, one call): $(mib "$((s_kbm - f_kbm))") MiB; ledger: $(stat -c %s "$ledger" | awk '{ printf "%.1f", $1 / 1048576 }') MiB on disk, $calls observations."
echo "CPU per call: strata $(cpu_ms "$(median "${s_cpu[@]}")" "$calls") ms (whole command; $(cpu_ms "$(awk -v a="$(median "${s_cpu[@]}")" -v b="$(median "${f_cpu[@]}")" 'BEGIN { print a - b }')" "$((calls - 1))") ms net of --limit 1), openai $(cpu_ms "$(median "${n_cpu[@]}")" "$calls") ms. Server CPU per call: strata run $(awk -v t="$(median "${s_srv[@]}")" -v n="$calls" -v c="$clk_tck" 'BEGIN { printf "%.3f", t / c * 1000 / n }') ms, openai run $(awk -v t="$(median "${n_srv[@]}")" -v n="$calls" -v c="$clk_tck" 'BEGIN { printf "%.3f", t / c * 1000 / n }') ms."
echo
echo "Load at start: $load_start; at end: $(cut -d' ' -f1-3 /proc/loadavg). Cores: $(nproc). Total bench time: $(secs "$(($(now_ns) - bench_start))") s."
