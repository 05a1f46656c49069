#include "strata/app/agents/agent_cli.hpp"

#include <cstdlib>

#include "strata/error.hpp"
#include "strata/model/agents/claude_stream.hpp"
#include "strata/model/agents/codex_stream.hpp"
#include "strata/model/agents/copilot_stream.hpp"
#include "strata/model/agents/gemini_stream.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/agents/opencode_stream.hpp"
#include "strata/model/agents/pi_stream.hpp"
#include "strata/model/agents/qwen_stream.hpp"
#include "strata/model/trajectory/claude_trajectory.hpp"
#include "strata/model/trajectory/codex_trajectory.hpp"
#include "strata/model/trajectory/copilot_trajectory.hpp"
#include "strata/model/trajectory/gemini_trajectory.hpp"
#include "strata/model/trajectory/opencode_trajectory.hpp"
#include "strata/model/trajectory/pi_trajectory.hpp"

namespace strata::app {
namespace {

using model::Json;

void append(std::vector<std::string>& args, const std::vector<std::string>& more) { args.insert(args.end(), more.begin(), more.end()); }

// For the CLIs that cannot hold an answer to a schema (Gemini CLI, OpenCode's run, pi, Copilot CLI): the request,
// then the schema as an instruction. Strata checks the answer against it all the same.
std::string with_answer_instruction(const std::string& prompt, const std::string& schema_text) {
  return prompt + "\n\nAnswer with exactly one JSON object and nothing else (no prose, no code fence), valid against this JSON Schema: " +
         schema_text + "\n";
}

// codex exec: --sandbox read-only is the OS sandbox (Landlock + seccomp) every command and patch
// the model asks for runs under; --ephemeral and --ignore-user-config keep the run from reading
// or leaving state in CODEX_HOME beyond its credentials.
AgentInvocation codex(const AgentRunOptions& options, const std::string& prompt, const std::string& schema_path) {
  AgentInvocation run{{"exec", "--json", "--ephemeral", "--ignore-user-config", "--skip-git-repo-check", "--sandbox",
                       options.tools.writes ? "workspace-write" : "read-only"},
                      {},
                      prompt};
  if (!options.tools.web) append(run.args, {"-c", "web_search=\"disabled\""});
  if (!options.model.empty()) append(run.args, {"--model", options.model});
  append(run.args, {"--output-schema", schema_path});
  append(run.args, options.extra_args);
  run.args.push_back("-");  // the prompt: stdin
  return run;
}

// claude -p: the built-in tools are named (--tools): reading and Bash, whose commands dontAsk
// lets through only when they need no asking (a command that writes is refused), plus
// sub-agents and the web tools when the policy turns them on. Without --tools Claude Code 2.1.328
// also offers scheduling, worktree, workflow and skill tools. The file-writing tools are
// disallowed besides, should agent arguments add them back.
AgentInvocation claude(const AgentRunOptions& options, const std::string& prompt, const std::string& schema_text) {
  std::string tools = "Bash,Read";
  if (options.tools.subagents) tools += ",Task";
  if (options.tools.web) tools += ",WebFetch,WebSearch";
  if (options.tools.writes) tools += ",Edit,Write";
  AgentInvocation run{{"-p", "--output-format", "stream-json", "--verbose", "--no-session-persistence", "--tools", tools,
                       "--permission-mode", options.tools.writes ? "acceptEdits" : "dontAsk"},
                      {},
                      prompt};
  if (!options.tools.writes) append(run.args, {"--disallowedTools", "Edit,Write,NotebookEdit"});
  if (!options.model.empty()) append(run.args, {"--model", options.model});
  append(run.args, {"--json-schema", schema_text});
  append(run.args, options.extra_args);
  return run;  // no prompt argument: print mode reads it from stdin
}

// Every '@' becomes \u0040, the same JSON: Gemini CLI and Qwen Code expand "@path" in a prompt
// into the file's content.
std::string without_file_references(const std::string& prompt) {
  std::string escaped;
  for (const char c : prompt) {
    if (c == '@') escaped += "\\u0040";
    else escaped += c;
  }
  return escaped;
}

// gemini -p "": headless, the prompt on stdin (the -p text, empty, is appended to it). In
// headless mode with the default approval mode the CLI does not even register the tools that
// would need asking (write_file, replace, run_shell_command): that is its read-only setting. A
// policy file (the side file; --policy) denies them besides, and every tool that reaches beyond
// the repository: a denied tool is not offered to the model. (A system settings file would do
// the same, but the CLI skips one whose directories others may write to, as TMPDIR's are.)
AgentInvocation gemini(const AgentRunOptions& options, const std::string& prompt, const std::string& schema_text,
                       const std::string& policy_path) {
  AgentInvocation run{{"-p", "", "--output-format", "stream-json", "--skip-trust", "--policy", policy_path},
                      {},
                      without_file_references(with_answer_instruction(prompt, schema_text))};
  if (options.tools.writes) append(run.args, {"--approval-mode", "auto_edit"});  // registers and allows the edit tools
  if (!options.model.empty()) append(run.args, {"--model", options.model});
  append(run.args, options.extra_args);
  return run;
}

std::string gemini_policy(const ToolPolicy& tools) {
  // save_memory writes to the user's GEMINI.md, which later runs would read: never.
  std::string denied = R"("run_shell_command", "save_memory", "enter_plan_mode")";
  if (!tools.writes) denied += R"(, "write_file", "replace")";
  if (!tools.web) denied += R"(, "web_fetch", "google_web_search")";
  if (!tools.subagents) denied += R"(, "invoke_agent")";
  return "# strata provider gemini: the tools a study run may not use\n[[rule]]\ntoolName = [" + denied +
         "]\ndecision = \"deny\"\npriority = 900\n";
}

// opencode run: permissions deny every tool that writes or reaches out (a denied tool is not
// offered to the model); they go in OPENCODE_CONFIG_CONTENT over the provider's own (which keeps
// its model provider settings), and a repository's opencode.json, which would override them, is
// not read.
AgentInvocation opencode(const AgentRunOptions& options, const std::string& prompt, const std::string& schema_text) {
  Json config = Json::object();
  if (const char* own = std::getenv("OPENCODE_CONFIG_CONTENT"); own && *own) {
    try {
      config = model::parse_json(own);
    } catch (const Error&) {
      throw Error("OPENCODE_CONFIG_CONTENT is not JSON");
    }
    if (!config.is_object()) throw Error("OPENCODE_CONFIG_CONTENT is not a JSON object");
  }
  const char* web = options.tools.web ? "allow" : "deny";
  config["permission"] = Json{{"edit", options.tools.writes ? "allow" : "deny"},  {"bash", "deny"},       {"webfetch", web},
                              {"websearch", web}, {"task", options.tools.subagents ? "allow" : "deny"},
                              {"external_directory", "deny"}, {"doom_loop", "deny"}, {"skill", "deny"},
                              {"todowrite", "deny"}, {"question", "deny"}};
  config["autoupdate"] = false;
  config["share"] = "disabled";
  config["snapshot"] = false;
  AgentInvocation run{{"run", "--format", "json"},
                      {"OPENCODE_CONFIG_CONTENT=" + model::compact_json(config), "OPENCODE_DISABLE_PROJECT_CONFIG=1",
                       "OPENCODE_DISABLE_AUTOUPDATE=1"},
                      with_answer_instruction(prompt, schema_text)};
  if (!options.model.empty()) append(run.args, {"--model", options.model});
  append(run.args, options.extra_args);
  return run;  // no message argument: run reads it from stdin
}

// qwen, the prompt on stdin: --core-tools names the built-in tools offered (reading; the edit tools
// with --allow-writes, the web tools with --allow-web), --exclude-tools removes the tools that
// are not core tools and would write, reach out or outlive the run (worktrees, memory, goals,
// schedules, skills, the tool-search bridge that calls tools by name), and the shell in every
// mode. --approval-mode plan refuses every tool that modifies anything besides; auto-edit lets the
// edit tools through. A sub-agent (the agent tool) needs --allowed-tools: non-interactive, the CLI
// would ask and decline. --json-schema makes the answer a call of structured_output, checked by
// the CLI, and --no-chat-recording keeps the session out of the agent's home.
AgentInvocation qwen(const AgentRunOptions& options, const std::string& prompt, const std::string& schema_text) {
  std::string core = "read_file,glob,grep_search,list_directory";
  std::string excluded = "run_shell_command,notebook_edit,skill,tool_search,tool_call,list_agents,send_message,enter_worktree,exit_worktree,"
                         "record_artifact,report_findings,get_goal,update_goal,task_stop,save_memory,todo_write,cron_create,cron_list,"
                         "cron_delete,loop_wakeup,zoom_image,read_mcp_resource,ask_user_question";
  if (options.tools.writes) core += ",edit,write_file";
  else excluded += ",edit,write_file";
  if (options.tools.web) core += ",web_fetch,web_search";
  else excluded += ",web_fetch,web_search";
  if (!options.tools.subagents) excluded += ",agent";
  AgentInvocation run{{"--output-format", "stream-json", "--approval-mode", options.tools.writes ? "auto-edit" : "plan", "--no-chat-recording",
                       "--core-tools", core, "--exclude-tools", excluded},
                      {},
                      without_file_references(prompt)};
  if (options.tools.subagents) append(run.args, {"--allowed-tools", "agent"});
  if (!options.model.empty()) append(run.args, {"--model", options.model});
  append(run.args, {"--json-schema", schema_text});
  append(run.args, options.extra_args);
  return run;  // no prompt argument: the CLI reads it from stdin
}

// pi -p, the prompt on stdin: --tools is the allowlist of every tool offered, built-in or not (a
// tool left out is not offered; called anyway it is "not found"): the reading ones, edit and
// write with --allow-writes; never bash (pi has no sandbox or permission mode: its shell could
// write anywhere). pi has no web or sub-agent tools of its own. Extensions, skills, prompt
// templates and themes are not discovered (agent arguments may still name one: -e, --skill),
// --no-session keeps the run out of the agent's session store, and --offline skips start-up
// network calls. The schema goes in the prompt.
AgentInvocation pi(const AgentRunOptions& options, const std::string& prompt, const std::string& schema_text) {
  AgentInvocation run{{"--mode", "json", "-p", "--no-session", "--offline", "--no-extensions", "--no-skills", "--no-prompt-templates",
                       "--no-themes", "--tools", options.tools.writes ? "read,grep,find,ls,edit,write" : "read,grep,find,ls"},
                      {},
                      with_answer_instruction(prompt, schema_text)};
  if (!options.model.empty()) append(run.args, {"--model", options.model});
  append(run.args, options.extra_args);
  return run;  // no message argument: pi reads it from stdin
}

// copilot, the prompt on stdin (piped, it runs the prompt and exits): --available-tools is every
// tool offered (a tool left out is not; called anyway it "does not exist"): view, glob and grep;
// edit and create with --allow-writes; never its shell (bash and its companions), which could
// write anywhere; task (sub-agents) with --allow-subagents; web_fetch with --allow-web.
// --allow-tool lets those run without asking (the edit tools through the "write" permission:
// measured, naming edit and create there leaves them denied, non-interactive). Its built-in GitHub MCP servers are off, and its
// token counts, which its stream does not carry, come from its OpenTelemetry file exporter,
// pointed at a file in its temporary directory (the side output). The schema goes in the prompt.
AgentInvocation copilot(const AgentRunOptions& options, const std::string& prompt, const std::string& schema_text,
                        const std::string& temporary_directory) {
  std::vector<std::string> tools = {"view", "glob", "grep"};
  std::vector<std::string> allowed = tools;  // the permissions: edit and create need "write"
  if (options.tools.writes) {
    tools.insert(tools.end(), {"edit", "create"});
    allowed.push_back("write");
  }
  if (options.tools.subagents) {
    tools.insert(tools.end(), {"task", "read_agent", "list_agents"});
    allowed.insert(allowed.end(), {"task", "read_agent", "list_agents"});
  }
  if (options.tools.web) {
    tools.push_back("web_fetch");
    allowed.push_back("web_fetch");
  }
  AgentInvocation run{{"--output-format", "json", "--disable-builtin-mcps", "--no-auto-update", "--available-tools"},
                      {"COPILOT_OTEL_FILE_EXPORTER_PATH=" + temporary_directory + "/strata-copilot-telemetry.jsonl"},
                      with_answer_instruction(prompt, schema_text),
                      temporary_directory + "/strata-copilot-telemetry.jsonl"};
  append(run.args, tools);
  run.args.push_back("--allow-tool");
  append(run.args, allowed);
  if (!options.model.empty()) append(run.args, {"--model", options.model});
  append(run.args, options.extra_args);
  return run;
}

}  // namespace

const char* agent_cli_name(AgentCli cli) {
  switch (cli) {
    case AgentCli::codex: return "codex";
    case AgentCli::claude: return "claude";
    case AgentCli::gemini: return "gemini";
    case AgentCli::opencode: return "opencode";
    case AgentCli::qwen: return "qwen";
    case AgentCli::pi: return "pi";
    case AgentCli::copilot: return "copilot";
  }
  return "?";
}

std::optional<AgentSideFile> agent_side_file(AgentCli cli, const AgentRunOptions& options, const std::string& schema_text) {
  if (cli == AgentCli::codex) return AgentSideFile{schema_text, ".json"};
  if (cli == AgentCli::gemini) return AgentSideFile{gemini_policy(options.tools), ".toml"};
  return std::nullopt;
}

AgentInvocation agent_invocation(AgentCli cli, const AgentRunOptions& options, const std::string& prompt, const std::string& schema_text,
                                 const std::string& side_file, const std::string& temporary_directory) {
  switch (cli) {
    case AgentCli::codex: return codex(options, prompt, side_file);
    case AgentCli::claude: return claude(options, prompt, schema_text);
    case AgentCli::gemini: return gemini(options, prompt, schema_text, side_file);
    case AgentCli::opencode: return opencode(options, prompt, schema_text);
    case AgentCli::qwen: return qwen(options, prompt, schema_text);
    case AgentCli::pi: return pi(options, prompt, schema_text);
    case AgentCli::copilot: return copilot(options, prompt, schema_text, temporary_directory);
  }
  return {};
}

std::string agent_invocation_summary(AgentCli cli) {
  switch (cli) {
    case AgentCli::codex:
      return "Runs codex exec --json --ephemeral --ignore-user-config --skip-git-repo-check --sandbox read-only (workspace-write\n"
             "with --allow-writes)\n"
             "[-c web_search=\"disabled\"] [--model M] --output-schema <schema file> [agent args] -";
    case AgentCli::claude:
      return "Runs claude -p --output-format stream-json --verbose --no-session-persistence --tools Bash,Read[,Task][,WebFetch,WebSearch]\n"
             "--permission-mode dontAsk --disallowedTools Edit,Write,NotebookEdit [--model M] --json-schema <schema> [agent args]\n"
             "(with --allow-writes: --tools ...,Edit,Write --permission-mode acceptEdits)";
    case AgentCli::gemini:
      return "Runs gemini -p \"\" --output-format stream-json --skip-trust --policy <file> [--model M] [agent args], headless\n"
             "(its tools that write are not registered), the policy denying them and the memory, sub-agent and web tools,\n"
             "the schema in the prompt (with --allow-writes: --approval-mode auto_edit, write_file and replace allowed)";
    case AgentCli::opencode:
      return "Runs opencode run --format json [--model M] [agent args] with OPENCODE_CONFIG_CONTENT denying edit, bash, web,\n"
             "task and every other tool that writes (over the provider's own), project config off, the schema in the prompt\n"
             "(with --allow-writes: edit allowed)";
    case AgentCli::qwen:
      return "Runs qwen --output-format stream-json --approval-mode plan --no-chat-recording --core-tools read_file,glob,grep_search,\n"
             "list_directory --exclude-tools <the shell, the edit tools and every tool that writes or reaches out> [--model M]\n"
             "--json-schema <schema> [agent args] (with --allow-writes: --approval-mode auto-edit, edit and write_file offered;\n"
             "--allow-subagents: the agent tool allowed; --allow-web: web_fetch and web_search)";
    case AgentCli::pi:
      return "Runs pi --mode json -p --no-session --offline --no-extensions --no-skills --no-prompt-templates --no-themes\n"
             "--tools read,grep,find,ls [--model M] [agent args], the schema in the prompt (with --allow-writes: --tools\n"
             "read,grep,find,ls,edit,write; never bash)";
    case AgentCli::copilot:
      return "Runs copilot --output-format json --disable-builtin-mcps --no-auto-update --available-tools view glob grep\n"
             "--allow-tool view glob grep [--model M] [agent args], the schema in the prompt, its token counts read from its\n"
             "OpenTelemetry file (with --allow-writes: edit and create too; --allow-subagents: task; --allow-web: web_fetch;\n"
             "never its shell)";
  }
  return {};
}

std::unique_ptr<model::AgentStreamReader> agent_stream_reader(AgentCli cli) {
  switch (cli) {
    case AgentCli::codex: return std::make_unique<model::CodexStreamReader>();
    case AgentCli::claude: return std::make_unique<model::ClaudeStreamReader>();
    case AgentCli::gemini: return std::make_unique<model::GeminiStreamReader>();
    case AgentCli::opencode: return std::make_unique<model::OpenCodeStreamReader>();
    case AgentCli::qwen: return std::make_unique<model::ClaudeStreamReader>(model::qwen_code_dialect());
    case AgentCli::pi: return std::make_unique<model::PiStreamReader>();
    case AgentCli::copilot: return std::make_unique<model::CopilotStreamReader>();
  }
  return nullptr;
}

std::unique_ptr<model::TrajectoryNormaliser> agent_trajectory(AgentCli cli, const std::string& prompt, std::vector<std::string> secrets) {
  const model::TrajectoryBounds bounds;
  switch (cli) {
    case AgentCli::codex: return std::make_unique<model::CodexTrajectory>(prompt, bounds, std::move(secrets));
    case AgentCli::claude: return std::make_unique<model::ClaudeTrajectory>(prompt, bounds, std::move(secrets));
    case AgentCli::gemini: return std::make_unique<model::GeminiTrajectory>(bounds, std::move(secrets));
    case AgentCli::opencode: return std::make_unique<model::OpenCodeTrajectory>(prompt, bounds, std::move(secrets));
    case AgentCli::qwen: return std::make_unique<model::ClaudeTrajectory>(prompt, bounds, std::move(secrets), model::qwen_code_dialect());
    case AgentCli::pi: return std::make_unique<model::PiTrajectory>(prompt, bounds, std::move(secrets));
    case AgentCli::copilot: return std::make_unique<model::CopilotTrajectory>(prompt, bounds, std::move(secrets));
  }
  return nullptr;
}

}  // namespace strata::app
