#!/usr/bin/env bash
# The viewer's benchmark (issue 46, docs/VIEWER.md): `strata view` on a 100,000-observation ledger
# (scripts/bench/make-ledger.mjs --verified, cached with the results benchmark's), beside `strata
# metrics` of the same ledger in one run:
#   ready        from start to the address printed (the ledger read an observation at a time)
#   first page   GET of the table's first page (100 rows), median of 5
#   filtered     a page filtered by the verifier's agreement (claim false), median of 5
#   sorted       a page sorted by tokens, descending, median of 5
#   drill-down   one observation read again from the ledger, median of 5
#   live         observations appended to the journal at RATE a second for SECONDS (distinct ones,
#                from the plain 100,000 ledger), each one's time from its write to its arrival in
#                the page's event stream (/api/events): median, p99, max
#   metrics      the viewer's /metrics (before the live part: the journal empty) beside `strata metrics`
#   memory       the viewer's peak RSS (VmHWM) over all of it, and after the table alone
# Targets: first page <= 300 ms, filtered page <= 100 ms, memory <= 100 MiB, live latency <= 1 s at
# 50 observations a second.
# Usage: scripts/bench/view.sh [build-dir=build] [observations=100000]   RATE=50 SECONDS=10
set -euo pipefail
cd "$(dirname "$0")/../.."  # repo root
build=${1:-build}
count=${2:-100000}
rate=${RATE:-50}
seconds=${SECONDS_LIVE:-10}
[ -x "$build/strata" ] || { echo "strata binary not found: $build/strata (build it first)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/strata-view-bench.XXXXXX")
VIEWER=
trap '[ -n "$VIEWER" ] && kill "$VIEWER" 2>/dev/null; rm -rf "$T"' EXIT
cp "$build/strata" "$T/strata"
strata=$T/strata
cache=${TMPDIR:-/tmp}/strata-bench
mkdir -p "$cache" "$T/study"
for kind in plain verified; do
  file=$cache/ledger-$count.json flag=
  [ $kind = verified ] && file=$cache/ledger-verified-$count.json flag=--verified
  if [ ! -s "$file" ] || [ scripts/bench/make-ledger.mjs -nt "$file" ]; then
    echo "[bench] making $file" >&2
    node scripts/bench/make-ledger.mjs "$count" "$file.partial.$$" $flag && mv "$file.partial.$$" "$file"
  fi
done
cp --reflink=auto "$cache/ledger-verified-$count.json" "$T/study/ledger.json"
total=$((rate * seconds))
# The observations to append: the plain ledger's first ones (distinct from the verified ledger's).
python3 - "$cache/ledger-$count.json" "$total" "$T/extra.jsonl" <<'PY'
import json, sys
path, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = open(path, encoding="utf-8").read(min(200_000_000, 4000 * n + 100_000))
at = text.index('"observations"')
at = text.index("[", at) + 1
decoder = json.JSONDecoder()
with open(out, "w") as f:
    for _ in range(n):
        while text[at] in " \n\r\t,":
            at += 1
        obs, at = decoder.raw_decode(text, at)
        f.write(json.dumps(obs, separators=(",", ":"), ensure_ascii=False) + "\n")
PY

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ms() { curl -s -o /dev/null -w '%{time_total}\n' "$1" | awk '{ printf "%.1f", $1 * 1000 }'; }

t0=$(date +%s%N)
"$strata" view --port 0 "$T/study" >"$T/viewer.out" 2>"$T/viewer.err" &
VIEWER=$!
until grep -q http "$T/viewer.out" 2>/dev/null; do sleep 0.02; done
ready=$(( ($(date +%s%N) - t0) / 1000000 ))
url=$(grep -o 'http://[^ ]*' "$T/viewer.out")
rss_table=$(awk '/VmRSS/ { print $2 }' /proc/$VIEWER/status)
timed() { local v=(); for _ in 1 2 3 4 5; do v+=("$(ms "$1")"); done; median "${v[@]}"; }
first=$(timed "${url}api/studies/0/observations?limit=100")
filtered=$(timed "${url}api/studies/0/observations?limit=100&verified=claim-false")
sorted=$(timed "${url}api/studies/0/observations?limit=100&sort=tokens&order=desc")
drill=$(timed "${url}api/studies/0/observations/77777")
curl -s "${url}api/studies/0/observations?limit=1&verified=claim-false" | python3 -c 'import json,sys; t=json.load(sys.stdin)["total"]; assert t > 0, t' 

# Metrics: the viewer's (the ledger read an observation at a time, the journal empty).
m0=$(date +%s%N); curl -s -o "$T/metrics.json" "${url}api/studies/0/metrics"; viewer_metrics=$(( ($(date +%s%N) - m0) / 1000000 ))
rss_metrics=$(awk '/VmHWM/ { print $2 }' /proc/$VIEWER/status)

# Live: a writer appends at RATE a second; the event stream's reader notes each arrival.
live=$(python3 - "$url" "$T/extra.jsonl" "$T/study/ledger.json.journal" "$rate" <<'PY'
import json, socket, sys, threading, time, urllib.parse
url, extra, journal, rate = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
lines = open(extra).read().splitlines()
hashes = [json.loads(l)["contentHash"] for l in lines]
written, arrived = {}, {}
host, port = urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port
s = socket.create_connection((host, port))
s.sendall(f"GET /api/events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
reader = s.makefile("rb")
def read_events():
    while len(arrived) < len(lines):
        line = reader.readline()
        if not line:
            return
        if line.startswith(b"data: "):
            now = time.monotonic()
            for study in json.loads(line[6:])["studies"]:
                for row in study.get("newest", []):
                    arrived.setdefault(row["contentHash"], now)
t = threading.Thread(target=read_events, daemon=True)
t.start()
time.sleep(1.0)
start = time.monotonic()
with open(journal, "a") as f:
    for i, (line, h) in enumerate(zip(lines, hashes)):
        while time.monotonic() < start + i / rate:
            time.sleep(0.001)
        f.write(line + "\n")
        f.flush()
        written[h] = time.monotonic()
t.join(timeout=10)
lat = sorted((arrived[h] - written[h]) * 1000 for h in hashes if h in arrived)
missing = len(hashes) - len(lat)
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print(f"{p(0.5):.0f} {p(0.99):.0f} {lat[-1]:.0f} {missing}")
PY
)
read -r live_median live_p99 live_max live_missing <<<"$live"
rss_live=$(awk '/VmRSS/ { print $2 }' /proc/$VIEWER/status)
hwm=$(awk '/VmHWM/ { print $2 }' /proc/$VIEWER/status)
kill "$VIEWER"; wait "$VIEWER" 2>/dev/null || true; VIEWER=
/usr/bin/time -f '%e %M' -o "$T/metrics.time" "$strata" metrics "$cache/ledger-verified-$count.json" >/dev/null
read -r cli_s cli_kb <"$T/metrics.time"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert "metrics" in m, m' "$T/metrics.json"

cat <<MD
| Measure | Value | Target |
|---|---:|---|
| ready (the ledger read, ${count} rows) | ${ready} ms | — |
| first page (100 rows) | ${first} ms | ≤ 300 ms |
| a filtered page (claim false) | ${filtered} ms | ≤ 100 ms |
| a sorted page (tokens, descending) | ${sorted} ms | — |
| drill-down (one observation) | ${drill} ms | — |
| live: write to arrival, median / p99 / max (${total} at ${rate}/s; ${live_missing} missing) | ${live_median} / ${live_p99} / ${live_max} ms | ≤ 1 s |
| RSS after the table / after the live part | $((rss_table / 1024)) / $((rss_live / 1024)) MiB | — |
| the viewer's metrics (the ledger streamed) | ${viewer_metrics} ms, peak RSS then $((rss_metrics / 1024)) MiB | — |
| peak RSS of the viewer (VmHWM) | $((hwm / 1024)) MiB | ≤ 100 MiB |
| \`strata metrics\` of the ledger, beside it | ${cli_s} s, $((cli_kb / 1024)) MiB | — |
MD
