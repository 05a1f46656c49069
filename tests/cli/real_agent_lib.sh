# Shared by the real-agent tests (agent_real_test.sh, scripts/bench/agents.sh): the pinned agent
# CLIs of tests/agents (scripts/setup.sh --agents), the scripted model server of
# tests/support/model_server.py on a free loopback port, and per agent the environment and the
# agent arguments that point it at that server, with HOME and every state directory in $WORK.
# Source after lib.sh with AGENT set (codex, claude, gemini, opencode, qwen, pi or copilot).
SUPPORT=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../support")
AGENTS_BIN=${STRATA_AGENTS_BIN:-$(realpath "$(dirname "${BASH_SOURCE[0]}")/../agents")/node_modules/.bin}
if [ ! -x "$AGENTS_BIN/$AGENT" ]; then
  echo "FAIL: $AGENT is not installed in $AGENTS_BIN: run scripts/setup.sh --agents" >&2
  exit 1
fi
# The test's key: it must reach the model server's log redacted and never Strata's output.
AGENT_KEY="sk-strata-test-SECRET-$$"

# start_server <script.json> [server args...]: a fresh model server for the script (stopping any
# earlier one); $PORT, $REQUESTS (its log).
SERVER_PID=
start_server() {
  stop_server
  REQUESTS=$WORK/requests-$((++SERVER_RUNS)).jsonl
  rm -f "$WORK/port"
  python3 "$SUPPORT/model_server.py" --script "$1" --log "$REQUESTS" --port-file "$WORK/port" "${@:2}" 2>>"$WORK/server.stderr" &
  SERVER_PID=$!
  local tries=200
  while [ ! -s "$WORK/port" ] && [ $((tries--)) -gt 0 ]; do sleep 0.05; done
  PORT=$(cat "$WORK/port")
  agent_setup
}
SERVER_RUNS=0
stop_server() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=
  fi
}
trap 'stop_server; rm -rf "$WORK"' EXIT

# script_file <name> <python expression of the script>: writes $WORK/<name>.json
script_file() { python3 -c "import json,sys; json.dump($2, open(sys.argv[1], 'w'))" "$WORK/$1.json"; }

# agent_setup: $AGENT_ENV (env assignments) and $AGENT_ARGS (after --) for the current $PORT, and
# the tool names the scripts use: TOOL_READ (with READ_ARGS), TOOL_EDIT, TOOL_WRITE, TOOL_SHELL
# and their argument builders.
agent_setup() {
  local home=$WORK/home
  mkdir -p "$home"
  AGENT_ENV=(HOME="$home" TMPDIR="$WORK/tmp" PATH="$AGENTS_BIN:/usr/bin:/bin")
  mkdir -p "$WORK/tmp"
  case $AGENT in
    codex)
      mkdir -p "$home/.codex"
      AGENT_ENV+=(CODEX_HOME="$home/.codex" CODEX_API_KEY="$AGENT_KEY")
      AGENT_ARGS=(-c model_provider=strata -c model_providers.strata.name=strata
        -c "model_providers.strata.base_url=\"http://127.0.0.1:$PORT/v1\"" -c model_providers.strata.env_key=CODEX_API_KEY
        -c model_providers.strata.supports_websockets=false -c model_providers.strata.request_max_retries=1
        -c model_providers.strata.stream_max_retries=1)
      AGENT_MODEL=gpt-5.5 ;;
    claude)
      AGENT_ENV+=(ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY="$AGENT_KEY"
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1
        CLAUDE_CODE_MAX_RETRIES=1)
      AGENT_ARGS=()
      AGENT_MODEL=claude-sonnet-4-5 ;;
    gemini)
      mkdir -p "$home/.gemini"
      echo '{"security":{"auth":{"selectedType":"gemini-api-key"}},"general":{"maxAttempts":2}}' >"$home/.gemini/settings.json"
      AGENT_ENV+=(GEMINI_API_KEY="$AGENT_KEY" GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" NO_COLOR=1)
      AGENT_ARGS=()
      AGENT_MODEL=gemini-2.5-pro ;;
    opencode)
      AGENT_ENV+=(XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" XDG_CACHE_HOME="$home/.cache"
        XDG_STATE_HOME="$home/.local/state" OPENCODE_DISABLE_MODELS_FETCH=1 NPM_CONFIG_REGISTRY=http://127.0.0.1:9/
        OPENCODE_CONFIG_CONTENT="{\"provider\":{\"scripted\":{\"npm\":\"@ai-sdk/openai-compatible\",\"options\":{\"baseURL\":\"http://127.0.0.1:$PORT/v1\",\"apiKey\":\"$AGENT_KEY\"},\"models\":{\"m1\":{\"name\":\"m1\"}}}},\"small_model\":\"scripted/m1\"}")
      AGENT_ARGS=()
      AGENT_MODEL=scripted/m1 ;;
    qwen)
      # The auth type is the provider config's agent argument (or the user's settings): headless,
      # the CLI refuses to pick one. Usage statistics off, as a study's user would set them.
      mkdir -p "$home/.qwen"
      echo '{"privacy":{"usageStatisticsEnabled":false},"general":{"disableAutoUpdate":true}}' >"$home/.qwen/settings.json"
      AGENT_ENV+=(OPENAI_API_KEY="$AGENT_KEY" OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" NO_COLOR=1)
      AGENT_ARGS=(--auth-type openai)
      AGENT_MODEL=m1 ;;
    pi)
      # A provider of its own in the agent's models.json, its key named by the variable that holds
      # it (pi resolves an apiKey that names a variable): the key is in no file.
      mkdir -p "$home/.pi/agent"
      echo "{\"providers\": {\"scripted\": {\"baseUrl\": \"http://127.0.0.1:$PORT/v1\", \"api\": \"openai-completions\", \"apiKey\": \"PI_SCRIPTED_API_KEY\", \"models\": [{\"id\": \"m1\"}]}}}" >"$home/.pi/agent/models.json"
      AGENT_ENV+=(PI_SCRIPTED_API_KEY="$AGENT_KEY" PI_TELEMETRY=0)
      AGENT_ARGS=()
      AGENT_MODEL=scripted/m1 ;;
    copilot)
      # Its own model provider (BYOK, OpenAI-compatible): no GitHub account, and offline mode
      # turns off its other network use (authentication, telemetry, updates, GitHub's MCP server).
      AGENT_ENV+=(COPILOT_HOME="$home/.copilot" COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$PORT/v1" COPILOT_PROVIDER_TYPE=openai
        COPILOT_PROVIDER_API_KEY="$AGENT_KEY" COPILOT_OFFLINE=true NO_COLOR=1)
      AGENT_ARGS=()
      AGENT_MODEL=m1 ;;
  esac
}

# The tools each agent offers the model under Strata's flags, as the scripts call them.
read_call() {  # read_call <file>: a python dict literal
  case $AGENT in
    codex) echo "{'name': 'exec_command', 'arguments': {'cmd': 'cat $1'}}" ;;
    claude) echo "{'name': 'Read', 'arguments': {'file_path': '$1'}}" ;;
    gemini) echo "{'name': 'read_file', 'arguments': {'file_path': '$1'}}" ;;
    opencode) echo "{'name': 'read', 'arguments': {'filePath': '$1'}}" ;;
    qwen) echo "{'name': 'read_file', 'arguments': {'file_path': '$REPO/$1'}}" ;;  # an absolute path, or refused
    pi) echo "{'name': 'read', 'arguments': {'path': '$1'}}" ;;
    copilot) echo "{'name': 'view', 'arguments': {'path': '$REPO/$1'}}" ;;
  esac
}
write_calls() {  # an edit of main.cpp (the tests write it), a new file, a shell command that writes: a python list literal
  case $AGENT in
    codex) echo "[{'name': 'apply_patch', 'input': '*** Begin Patch\n*** Update File: main.cpp\n@@\n-int main() { return 0; }\n+int main() { return 1; }\n*** End Patch\n'},
                  {'name': 'apply_patch', 'input': '*** Begin Patch\n*** Add File: new.txt\n+new file\n*** End Patch\n'},
                  {'name': 'exec_command', 'arguments': {'cmd': 'echo x > f; touch g'}}]" ;;
    claude) echo "[{'name': 'Edit', 'arguments': {'file_path': '$REPO/main.cpp', 'old_string': 'return 0', 'new_string': 'return 1'}},
                   {'name': 'Write', 'arguments': {'file_path': '$REPO/new.txt', 'content': 'new file'}},
                   {'name': 'Bash', 'arguments': {'command': 'echo x > f; touch g', 'description': 'write'}}]" ;;
    gemini) echo "[{'name': 'replace', 'arguments': {'file_path': 'main.cpp', 'old_string': 'return 0', 'new_string': 'return 1', 'instruction': 'edit'}},
                   {'name': 'write_file', 'arguments': {'file_path': 'new.txt', 'content': 'new file'}},
                   {'name': 'run_shell_command', 'arguments': {'command': 'echo x > f; touch g', 'description': 'write'}}]" ;;
    opencode) echo "[{'name': 'edit', 'arguments': {'filePath': '$REPO/main.cpp', 'oldString': 'return 0', 'newString': 'return 1'}},
                     {'name': 'write', 'arguments': {'filePath': '$REPO/new.txt', 'content': 'new file'}},
                     {'name': 'bash', 'arguments': {'command': 'echo x > f; touch g', 'description': 'write'}}]" ;;
    qwen) echo "[{'name': 'edit', 'arguments': {'file_path': '$REPO/main.cpp', 'old_string': 'return 0', 'new_string': 'return 1'}},
                 {'name': 'write_file', 'arguments': {'file_path': '$REPO/new.txt', 'content': 'new file'}},
                 {'name': 'run_shell_command', 'arguments': {'command': 'echo x > f; touch g', 'description': 'write'}}]" ;;
    pi) echo "[{'name': 'edit', 'arguments': {'path': 'main.cpp', 'edits': [{'oldText': 'return 0', 'newText': 'return 1'}]}},
               {'name': 'write', 'arguments': {'path': 'new.txt', 'content': 'new file'}},
               {'name': 'bash', 'arguments': {'command': 'echo x > f; touch g'}}]" ;;
    copilot) echo "[{'name': 'edit', 'arguments': {'path': '$REPO/main.cpp', 'old_str': 'return 0', 'new_str': 'return 1'}},
                    {'name': 'create', 'arguments': {'path': '$REPO/new.txt', 'file_text': 'new file'}},
                    {'name': 'bash', 'arguments': {'command': 'echo x > f; touch g', 'description': 'write'}}]" ;;
  esac
}

# agent_provider <stdin file> [strata provider args...]: `strata provider $AGENT` in $REPO with the
# agent's environment only; $CODE, $OUT, $ERR.
agent_provider() {
  local request=$1
  shift
  (cd "$REPO" && env -i "${AGENT_ENV[@]}" "$STRATA" provider "$@" --agent-command "$AGENTS_BIN/$AGENT" \
    --model "$AGENT_MODEL" -- "${AGENT_ARGS[@]}" <"$request" >"$WORK/stdout" 2>"$WORK/stderr")
  CODE=$?
  OUT=$(cat "$WORK/stdout")
  ERR=$(cat "$WORK/stderr")
}

# tree_sum <dir>: one checksum of every file's path, mode and content (the tree byte for byte).
tree_sum() { (cd "$1" && find . -printf '%p %m %y\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1; }
