#!/usr/bin/env bash
# Issue 25: what `strata provider <agent>` costs on top of the real agent CLI. For each agent
# (the versions pinned in tests/agents; scripts/setup.sh --agents), against the scripted model
# server on loopback (tests/support/model_server.py, the answer at once, no tool call), RUNS
# executions alternating:
#   bare     the agent CLI alone with the arguments, environment and prompt the adapter gives it
#            (the provider request plus, for Gemini CLI, OpenCode, pi and Copilot CLI, the schema
#            instruction; Copilot CLI with its telemetry file, where its token counts are),
#            its stream to /dev/null, in a fresh temporary directory (TMPDIR) as the adapter gives
#            every run (Node keeps its compile cache there: Copilot CLI starts about 0.8 s slower in a fresh one);
#   adapter  `strata provider <agent>` with the same request on stdin: the agent, plus the
#            adapter's own work (reading the request, writing the side file, spawning and
#            bounding the agent, reading its stream as it arrives, checking and mapping the answer).
# Columns: median wall of each, overhead = adapter - bare (the adapter's own cost per execution),
# and the agent's own wall as the adapter measured it (observedProviderDurationMs).
# Usage: scripts/bench/agents-real.sh [build-dir=build] [runs=5] [agents="codex claude gemini opencode qwen pi copilot"]
set -uo pipefail
cd "$(dirname "$0")/../.."  # repo root
build=$(realpath "${1:-build}")
runs=${2:-5}
agents=${3:-codex claude gemini opencode qwen pi copilot}
[ -x "$build/strata" ] || { echo "strata binary not found: $build/strata (build it first)" >&2; exit 1; }
STRATA=$build/strata
. tests/cli/lib.sh

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
now_ms() { date +%s%3N; }
echo "| Agent | bare (median ms) | adapter (median ms) | overhead (ms) | agent as measured by the adapter (median ms) | runs |"
echo "|---|---|---|---|---|---|"
for AGENT in $agents; do
  . tests/cli/real_agent_lib.sh
  REPO=$WORK/repo-$AGENT
  mkdir -p "$REPO" && cp -r examples/study/repository/. "$REPO/"
  python3 -c '
import json, sys
task = {"taskId": "consumer-01-discovery", "repositoryId": "consumer-01", "category": "discovery", "scenarioId": "repository-only",
        "modelId": "reference-model", "replicate": 0, "variantId": "variant-a", "difficulty": "easy"}
print(json.dumps({"protocol": "doc-bridge.study-provider.v1", "task": task, "objective": "find where the program starts"}, separators=(",", ":")), end="")
' >"$WORK/request.json"
  answer='{"taskOutcome":"success","evidenceQuality":"high","safetyOutcome":"safe","evidenceIds":[],"clarificationRequests":0,"reworkCount":0,"firstEvidenceLatencyMs":null,"measurements":[]}'
  script_file bench "{'turns': [], 'after': {'text': '''$answer'''}}"
  start_server "$WORK/bench.json"
  schema=$(python3 -c 'import json,sys;print(json.dumps(json.load(open(sys.argv[1] + "/study-provider-output.schema.3224164.json")),separators=(",",":")))' "${STRATA_FIXTURES:-../shared/fixtures/doc-bridge}")
  printf '%s' "$schema" >"$WORK/schema.json"
  printf '[[rule]]\ntoolName = ["run_shell_command", "write_file", "replace", "save_memory", "enter_plan_mode", "web_fetch", "google_web_search", "invoke_agent"]\ndecision = "deny"\npriority = 900\n' >"$WORK/policy.toml"
  { cat "$WORK/request.json"; printf '\n\nAnswer with exactly one JSON object and nothing else (no prose, no code fence), valid against this JSON Schema: %s\n' "$schema"; } >"$WORK/prompt-instructed.txt"
  bare_env=("${AGENT_ENV[@]}")
  case $AGENT in
    codex) bare=(exec --json --ephemeral --ignore-user-config --skip-git-repo-check --sandbox read-only -c 'web_search="disabled"' --model "$AGENT_MODEL" --output-schema "$WORK/schema.json" "${AGENT_ARGS[@]}" -); prompt=$WORK/request.json ;;
    claude) bare=(-p --output-format stream-json --verbose --no-session-persistence --tools Bash,Read --permission-mode dontAsk --disallowedTools Edit,Write,NotebookEdit --model "$AGENT_MODEL" --json-schema "$schema"); prompt=$WORK/request.json ;;
    gemini) bare=(-p "" --output-format stream-json --skip-trust --policy "$WORK/policy.toml" --model "$AGENT_MODEL"); prompt=$WORK/prompt-instructed.txt ;;
    opencode) bare=(run --format json --model "$AGENT_MODEL"); prompt=$WORK/prompt-instructed.txt
      bare_env+=(OPENCODE_DISABLE_PROJECT_CONFIG=1 OPENCODE_DISABLE_AUTOUPDATE=1)
      for i in "${!bare_env[@]}"; do  # the adapter's permissions over the provider's config
        case ${bare_env[$i]} in OPENCODE_CONFIG_CONTENT=*)
          bare_env[$i]="OPENCODE_CONFIG_CONTENT=$(python3 -c 'import json,sys; c=json.loads(sys.argv[1]); c["permission"]={k:"deny" for k in ("edit","bash","webfetch","websearch","task","external_directory","doom_loop","skill","todowrite","question")}; c.update(autoupdate=False, share="disabled", snapshot=False); print(json.dumps(c))' "${bare_env[$i]#OPENCODE_CONFIG_CONTENT=}")" ;;
        esac
      done ;;
    qwen) bare=(--output-format stream-json --approval-mode plan --no-chat-recording --core-tools read_file,glob,grep_search,list_directory
      --exclude-tools run_shell_command,notebook_edit,skill,tool_search,tool_call,list_agents,send_message,enter_worktree,exit_worktree,record_artifact,report_findings,get_goal,update_goal,task_stop,save_memory,todo_write,cron_create,cron_list,cron_delete,loop_wakeup,zoom_image,read_mcp_resource,ask_user_question,edit,write_file,web_fetch,web_search,agent
      --model "$AGENT_MODEL" --json-schema "$schema" "${AGENT_ARGS[@]}"); prompt=$WORK/request.json ;;
    pi) bare=(--mode json -p --no-session --offline --no-extensions --no-skills --no-prompt-templates --no-themes --tools read,grep,find,ls
      --model "$AGENT_MODEL"); prompt=$WORK/prompt-instructed.txt ;;
    copilot) bare=(--output-format json --disable-builtin-mcps --no-auto-update --available-tools view glob grep --allow-tool view glob grep
      --model "$AGENT_MODEL"); prompt=$WORK/prompt-instructed.txt
      bare_env+=(COPILOT_OTEL_FILE_EXPORTER_PATH="$WORK/copilot-telemetry.jsonl") ;;
  esac
  bare_ms=() adapter_ms=() agent_ms=()
  for _ in $(seq "$runs"); do
    tmp=$(mktemp -d "$WORK/bare-tmp.XXXXXX")  # a temporary directory of its own, as the adapter gives each run
    t0=$(now_ms)
    (cd "$REPO" && env -i "${bare_env[@]}" TMPDIR="$tmp" "$AGENTS_BIN/$AGENT" "${bare[@]}" <"$prompt" >/dev/null 2>&1) || echo "[bench] $AGENT bare run failed" >&2
    bare_ms+=($(($(now_ms) - t0)))
    rm -rf "$tmp"
    t0=$(now_ms)
    agent_provider "$WORK/request.json" "$AGENT"
    adapter_ms+=($(($(now_ms) - t0)))
    [ "$CODE" = 0 ] || echo "[bench] $AGENT adapter run failed: $ERR" >&2
    agent_ms+=($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["measurements"]["observedProviderDurationMs"])' "$WORK/stdout" 2>/dev/null || echo 0))
  done
  b=$(median "${bare_ms[@]}") a=$(median "${adapter_ms[@]}") m=$(median "${agent_ms[@]}")
  echo "| $AGENT | $b | $a | $((a - b)) | $m | $runs |"
  stop_server
done
