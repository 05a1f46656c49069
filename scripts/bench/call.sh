#!/usr/bin/env bash
# One `strata call` (claim + TLS POST + usage event) against the test server, side by side
# with curl doing the same POST with the same CA. Usage: scripts/bench/call.sh [build-dir] [n]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
n=${2:-30}
T=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; rm -rf "$T"' EXIT
mkfifo "$T/ctl"
"$build/tests/strata-test-server" "$T/certs" <"$T/ctl" >"$T/info" &
exec 3>"$T/ctl"
for _ in $(seq 50); do [ -s "$T/info" ] && break; sleep 0.1; done
read -r port ca <"$T/info"
mkdir -p "$T/p" "$T/s" "$T/h"
export CM_WORKFLOW_LOG_HOME=$T/h SSL_CERT_FILE=$ca CM_OPENAI_COMPATIBLE_ENABLED=true \
  CM_OPENAI_COMPATIBLE_BASE_URL=https://127.0.0.1:$port/v1 CM_OPENAI_COMPATIBLE_API_KEY=bench-key
packet='{"stable_prefix":{"safety":"s","workflow":"w","project_rules":"p","role":"planner","output_schema":"o"},"dynamic_packet":{"workflow":"cm-prd","stage":"design_generation","role":"planner","objective":"bench","identifiers":{},"constraints":[],"expected_output":"plan"}}'
"$build/strata" usage log --workflow cm-prd --event run_start --phase start --runtime codex --project-root "$T/p" \
  --specs-dir "$T/s" --run-id bench-run-0001 --detail "bench started" >/dev/null
body='{"model":"planner-default","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}],"stream":false}'
now() { date +%s%N; }
strata_ms=() curl_ms=()
for i in $(seq "$n"); do
  t=$(now)
  printf '%s' "$packet" | "$build/strata" call --workflow cm-prd --stage design_generation --role planner --runtime codex \
    --requested-model planner-default --call-id "bench-call-$i" --project-root "$T/p" --specs-dir "$T/s" \
    --run-id bench-run-0001 >/dev/null
  strata_ms+=("$(( ($(now) - t) / 1000 ))")
  t=$(now)
  curl -s --cacert "$ca" -H "Authorization: Bearer bench-key" -H "Content-Type: application/json" \
    -d "$body" "https://127.0.0.1:$port/v1/chat/completions" >/dev/null
  curl_ms+=("$(( ($(now) - t) / 1000 ))")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
s=$(median "${strata_ms[@]}") c=$(median "${curl_ms[@]}")
echo "| Client | Calls | Median wall (ms) |"
echo "|---|---:|---:|"
echo "| \`strata call\` (claim + TLS POST + usage event) | $n | $(awk -v v="$s" 'BEGIN { printf "%.1f", v / 1000 }') |"
echo "| \`curl\` (the same POST, same CA) | $n | $(awk -v v="$c" 'BEGIN { printf "%.1f", v / 1000 }') |"
echo
echo "Ratio strata/curl (medians): **$(awk -v a="$s" -v b="$c" 'BEGIN { printf "%.2f", a / b }')x** (target <= 1.5)."
