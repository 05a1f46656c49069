#include "strata/model/trajectory/gemini_trajectory.hpp"

#include "strata/error.hpp"
#include "strata/model/json/json_document.hpp"

namespace strata::model {
namespace {

const Json& gemini_field(const Json& object, const char* name) {
  static const Json kNone;
  if (!object.is_object()) return kNone;
  const auto found = object.find(name);
  return found == object.end() ? kNone : *found;
}

const std::string& gemini_text(const Json& object, const char* name) {
  static const std::string kEmpty;
  const Json& value = gemini_field(object, name);
  return value.is_string() ? value.get_ref<const std::string&>() : kEmpty;
}

}  // namespace

GeminiTrajectory::GeminiTrajectory(TrajectoryBounds bounds, std::vector<std::string> secrets)
    : trajectory_("gemini-cli", bounds, std::move(secrets)) {}

std::size_t GeminiTrajectory::agent_step(const Json& event, double at_ms) {
  if (!agent_step_) {
    agent_step_ = trajectory_.add_step("agent", "", at_ms);
    trajectory_.set_timestamp(*agent_step_, gemini_text(event, "timestamp"));
    called_ = false;
  }
  return *agent_step_;
}

void GeminiTrajectory::add_line(std::string_view line, double at_ms) {
  const std::size_t first = line.find_first_not_of(" \t\r");
  if (ended_ || first == std::string_view::npos || line[first] != '{') return;
  Json event;
  try {
    event = parse_json(line);
  } catch (const Error&) {
    return;
  }
  const std::string& type = gemini_text(event, "type");
  if (type == "init") {
    trajectory_.set_session(gemini_text(event, "session_id"));
    trajectory_.set_agent_model(gemini_text(event, "model"));
  } else if (type == "message" && gemini_text(event, "role") == "user") {
    const std::size_t step = trajectory_.add_step("user", gemini_text(event, "content"), at_ms);
    trajectory_.set_timestamp(step, gemini_text(event, "timestamp"));
    agent_step_.reset();
  } else if (type == "message" && gemini_text(event, "role") == "assistant") {
    if (called_) agent_step_.reset();  // text after a tool call: the next step
    const std::size_t step = agent_step(event, at_ms);
    // The pieces of one message are one text: joined as they came, without separators.
    trajectory_.append_message(step, gemini_text(event, "content"), "");
  } else if (type == "tool_use") {
    const std::size_t step = agent_step(event, at_ms);
    trajectory_.add_tool_call(step, gemini_text(event, "tool_id"), gemini_text(event, "tool_name"), gemini_field(event, "parameters"));
    called_ = true;
  } else if (type == "tool_result") {
    // The stream carries a tool's output only for some tools (measured with 0.61.0: read_file's
    // result has its status and no output); then the status is what the result says.
    const Json& error = gemini_field(event, "error");
    std::string content = error.is_object() ? "error: " + gemini_text(error, "message") : gemini_text(event, "output");
    if (content.empty() && !gemini_text(event, "status").empty()) content = "(" + gemini_text(event, "status") + "; no output in the stream)";
    trajectory_.add_observation(gemini_text(event, "tool_id"), content);
  } else if (type == "result") {
    ended_ = true;
  }
}

}  // namespace strata::model
