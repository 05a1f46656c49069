#include "strata/app/verifier/verifier_phase.hpp"

#include <cstdlib>

#include "strata/exec/bounded_process.hpp"

namespace strata::app {
namespace {

model::CheckEnd check_end(const exec::ProcessResult& result) {
  switch (result.end) {
    case exec::ProcessEnd::exited: return {model::CheckEnd::exited, result.exit_code};
    case exec::ProcessEnd::signaled: return {model::CheckEnd::signaled, -1};
    case exec::ProcessEnd::timed_out: return {model::CheckEnd::timed_out, -1};
    case exec::ProcessEnd::output_limit: return {model::CheckEnd::output_limit, -1};
    case exec::ProcessEnd::spawn_failed: break;
  }
  return {model::CheckEnd::not_started, -1};
}

}  // namespace

std::vector<std::string> check_environment(const std::string& hidden_at) {
  const char* path = std::getenv("PATH");
  std::vector<std::string> env{std::string("PATH=") + (path != nullptr ? path : "/usr/bin:/bin"), "HOME=/tmp", "TMPDIR=/tmp",
                               "LANG=C.UTF-8"};
  if (!hidden_at.empty()) env.push_back("STRATA_HIDDEN_CHECKS=" + hidden_at);
  return env;
}

boost::asio::awaitable<model::VerifiedRun> run_verifier_phase(VerifierPhase phase) {
  const auto started = std::chrono::steady_clock::now();
  CheckConfinement confinement;
  std::string hidden_at;
  if (phase.preparation != nullptr && phase.preparation->hidden_directory) {
    hidden_at = phase.workspace->repository + "/" + phase.preparation->mount_at;
    confinement.read_only_mounts.emplace_back(*phase.preparation->hidden_directory, hidden_at);
  }
  model::VerifiedRun run;
  for (const auto& check : *phase.checks) {
    if (phase.stopping && phase.stopping()) break;
    exec::ProcessSpec spec;
    spec.program = "/bin/sh";
    spec.args = {"-c", check.command};
    spec.env = check_environment(hidden_at);
    spec.timeout = std::chrono::milliseconds(check.timeout_ms);
    spec.stdout_limit = check.max_output_bytes;
    spec.stderr_limit = check.max_output_bytes;
    spec.keep_stderr = true;
    spec.kill_grace = phase.kill_grace;
    confinement.network = check.network;
    confinement.max_processes = phase.bound_processes ? check.max_processes : 0;
    phase.workspaces->wrap_check(spec, *phase.workspace, confinement);
    exec::ProcessResult result = co_await exec::run_bounded_process(std::move(spec));
    model::CheckOutcome outcome;
    outcome.id = check.id;
    const model::CheckEnd end = check_end(result);
    if (end.kind == model::CheckEnd::exited) outcome.exit_code = end.exit_code;
    // What was kept past the bound (one read's worth) is not kept in the output file.
    if (result.stdout_data.size() > check.max_output_bytes) result.stdout_data.resize(check.max_output_bytes);
    outcome.result = model::judge_check(end, result.stdout_data, check.rule);
    outcome.duration_ms = static_cast<double>(result.duration.count());
    outcome.stdout_bytes = static_cast<double>(result.stdout_bytes);
    outcome.stderr_bytes = static_cast<double>(result.stderr_bytes);
    outcome.max_output_bytes = static_cast<double>(check.max_output_bytes);
    outcome.stdout_text = std::move(result.stdout_data);
    outcome.stderr_text = std::move(result.stderr_data);
    run.checks.push_back(std::move(outcome));
  }
  run.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  co_return run;
}

}  // namespace strata::app
