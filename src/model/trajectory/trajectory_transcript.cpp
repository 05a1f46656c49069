#include "strata/model/trajectory/trajectory_transcript.hpp"

#include <cmath>
#include <cstdio>

#include "strata/model/json/json_writer.hpp"

namespace strata::model {
namespace {

// A member of an object, or null (a missing field, or the value is not an object at all).
const Json& member(const Json& value, const char* name) {
  static const Json none;
  if (!value.is_object()) return none;
  const auto found = value.find(name);
  return found == value.end() ? none : *found;
}

std::string text_of(const Json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return compact_json(value);  // ATIF allows a message of content parts: shown as JSON
}

std::string number_text(const Json& value) {
  if (!value.is_number()) return "?";
  const double number = value.get<double>();
  char text[64];
  if (std::floor(number) == number && std::fabs(number) < 1e15) std::snprintf(text, sizeof text, "%.0f", number);
  else std::snprintf(text, sizeof text, "%.4f", number);
  return text;
}

// `text` under a label, every line of it indented: a transcript a person can scan.
void add_block(std::vector<std::string>& lines, const std::string& label, const std::string& text) {
  std::string prefix = "  " + label;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    lines.push_back(prefix + line);
    prefix.assign(2 + label.size(), ' ');
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

std::string step_heading(const Json& step) {
  std::string heading = "Step " + number_text(member(step, "step_id")) + " · " + text_of(member(step, "source"));
  const Json& at = member(member(step, "extra"), "at_ms");
  if (at.is_number()) heading += " · +" + number_text(at) + " ms";
  const Json& metrics = member(step, "metrics");
  if (member(metrics, "prompt_tokens").is_number() || member(metrics, "completion_tokens").is_number())
    heading += " · " + number_text(member(metrics, "prompt_tokens")) + " in / " + number_text(member(metrics, "completion_tokens")) +
               " out";
  if (member(member(step, "extra"), "parent_tool_call_id").is_string())
    heading += " · sub-agent of " + text_of(member(member(step, "extra"), "parent_tool_call_id"));
  return heading;
}

void add_step(std::vector<std::string>& lines, const Json& step) {
  lines.push_back(step_heading(step));
  const std::string message = text_of(member(step, "message"));
  if (!message.empty()) add_block(lines, "", message);
  const std::string reasoning = text_of(member(step, "reasoning_content"));
  if (!reasoning.empty()) add_block(lines, "reasoning: ", reasoning);
  const Json& calls = member(step, "tool_calls");
  if (calls.is_array())
    for (const auto& call : calls)
      add_block(lines, "→ ", text_of(member(call, "function_name")) + " " + text_of(member(call, "arguments")) + "  [" +
                                text_of(member(call, "tool_call_id")) + "]");
  const Json& results = member(member(step, "observation"), "results");
  if (results.is_array())
    for (const auto& result : results)
      add_block(lines, "← " + text_of(member(result, "source_call_id")) + ": ", text_of(member(result, "content")));
}

}  // namespace

std::vector<std::string> trajectory_transcript(const Json& trajectory) {
  const Json& agent = member(trajectory, "agent");
  const Json& steps = member(trajectory, "steps");
  std::vector<std::string> lines;
  std::string head = "Trajectory: " + text_of(member(agent, "name")) + " " + text_of(member(agent, "version"));
  if (member(agent, "model_name").is_string()) head += " (" + text_of(member(agent, "model_name")) + ")";
  head += ", " + std::to_string(steps.is_array() ? steps.size() : 0) + " steps, " + text_of(member(trajectory, "schema_version"));
  lines.push_back(head);
  if (member(trajectory, "session_id").is_string()) lines.push_back("Session: " + text_of(member(trajectory, "session_id")));
  if (steps.is_array())
    for (const auto& step : steps) add_step(lines, step);
  const Json& totals = member(trajectory, "final_metrics");
  if (totals.is_object()) {
    std::string line = "Totals: " + number_text(member(totals, "total_prompt_tokens")) + " prompt, " +
                       number_text(member(totals, "total_completion_tokens")) + " completion, " +
                       number_text(member(totals, "total_cached_tokens")) + " cached tokens";
    if (member(totals, "total_cost_usd").is_number()) line += ", $" + number_text(member(totals, "total_cost_usd"));
    lines.push_back(line);
  }
  const Json& strata = member(member(trajectory, "extra"), "strata");
  if (strata.is_object())
    lines.push_back("Cut: " + number_text(member(member(strata, "cut"), "fields")) + " fields (" +
                    number_text(member(member(strata, "cut"), "bytes")) + " bytes); redactions: " +
                    number_text(member(strata, "redactions")));
  return lines;
}

Json trajectory_summary(const Json& trajectory) {
  const Json& agent = member(trajectory, "agent");
  const Json& steps = member(trajectory, "steps");
  const Json& totals = member(trajectory, "final_metrics");
  const Json& strata = member(member(trajectory, "extra"), "strata");
  return {{"agent", member(agent, "name")},
          {"version", member(agent, "version")},
          {"model", member(agent, "model_name")},
          {"steps", steps.is_array() ? Json(static_cast<double>(steps.size())) : Json()},
          {"promptTokens", member(totals, "total_prompt_tokens")},
          {"completionTokens", member(totals, "total_completion_tokens")},
          {"cutFields", member(member(strata, "cut"), "fields")},
          {"redactions", member(strata, "redactions")}};
}

}  // namespace strata::model
