#include "strata/model/trajectory/opencode_trajectory.hpp"

#include "strata/error.hpp"
#include "strata/model/json/json_document.hpp"

namespace strata::model {
namespace {

const Json& part_field(const Json& object, const char* name) {
  static const Json kNone;
  if (!object.is_object()) return kNone;
  const auto found = object.find(name);
  return found == object.end() ? kNone : *found;
}

std::string part_text(const Json& object, const char* name) {
  const Json& value = part_field(object, name);
  if (value.is_string()) return value.get<std::string>();
  return value.is_null() ? std::string() : value.dump();
}

std::optional<double> token_count(const Json& object, const char* name) {
  const Json& value = part_field(object, name);
  if (!value.is_number() || value.get<double>() < 0) return std::nullopt;
  return value.get<double>();
}

}  // namespace

OpenCodeTrajectory::OpenCodeTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets)
    : trajectory_("opencode", bounds, std::move(secrets)) {
  trajectory_.add_step("user", prompt, 0);
}

std::size_t OpenCodeTrajectory::current_step(double at_ms) {
  if (!step_) step_ = trajectory_.add_step("agent", "", at_ms);
  return *step_;
}

void OpenCodeTrajectory::add_line(std::string_view line, double at_ms) {
  const std::size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos || line[first] != '{') return;
  Json event;
  try {
    event = parse_json(line);
  } catch (const Error&) {
    return;
  }
  const std::string type = part_text(event, "type");
  const Json& part = part_field(event, "part");
  if (type == "step_start") {
    step_ = trajectory_.add_step("agent", "", at_ms);
    if (const std::string session = part_text(event, "sessionID"); !session.empty()) trajectory_.set_session(session);
  } else if (type == "text") {
    trajectory_.append_message(current_step(at_ms), part_text(part, "text"));
  } else if (type == "reasoning") {
    trajectory_.append_reasoning(current_step(at_ms), part_text(part, "text"));
  } else if (type == "tool_use") {
    const Json& state = part_field(part, "state");
    const std::string call = part_text(part, "callID");
    trajectory_.add_tool_call(current_step(at_ms), call, part_text(part, "tool"), part_field(state, "input"));
    const std::string status = part_text(state, "status");
    trajectory_.add_observation(call, status == "error" ? "error: " + part_text(state, "error") : part_text(state, "output"));
  } else if (type == "step_finish") {
    const Json& tokens = part_field(part, "tokens");
    const Json& cache = part_field(tokens, "cache");
    const auto input = token_count(tokens, "input"), output = token_count(tokens, "output");
    const double read = token_count(cache, "read").value_or(0), written = token_count(cache, "write").value_or(0);
    const double reasoning = token_count(tokens, "reasoning").value_or(0);
    trajectory_.set_metrics(current_step(at_ms), input ? std::optional<double>(*input + read + written) : std::nullopt,
                            output ? std::optional<double>(*output + reasoning) : std::nullopt, read);
    step_.reset();
  }
}

}  // namespace strata::model
