#include "strata/model/trajectory/atif_trajectory.hpp"

#include <algorithm>
#include <utility>

namespace strata::model {
namespace {

constexpr std::size_t kShortestSecret = 6;  // shorter values would be found in ordinary text
constexpr const char* kRedacted = "[redacted]";

// The longest prefix of `text` of at most `limit` bytes that does not split a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

AtifTrajectory::AtifTrajectory(std::string agent_name, TrajectoryBounds bounds, std::vector<std::string> secrets)
    : agent_name_(std::move(agent_name)), bounds_(bounds) {
  for (std::string& secret : secrets)
    if (secret.size() >= kShortestSecret) secrets_.push_back(std::move(secret));
  // The longest first: a secret that contains another is replaced whole.
  std::sort(secrets_.begin(), secrets_.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string AtifTrajectory::redacted(std::string_view text) {
  std::string out(text);
  for (const std::string& secret : secrets_)
    for (std::size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + std::char_traits<char>::length(kRedacted))) {
      out.replace(at, secret.size(), kRedacted);
      ++redactions_;
    }
  return out;
}

std::string AtifTrajectory::kept_id(std::string_view text) { return std::string(utf8_prefix(redacted(text), 256)); }

std::string AtifTrajectory::kept(std::string_view text, std::size_t field_used) {
  const std::string redacted = this->redacted(text);
  const std::size_t field_room = bounds_.field_bytes - std::min(field_used, bounds_.field_bytes);
  const std::size_t room = std::min(field_room, bounds_.total_bytes - std::min(kept_bytes_, bounds_.total_bytes));
  std::string out(utf8_prefix(redacted, room));
  if (out.size() < redacted.size()) {
    ++cut_fields_;
    cut_bytes_ += redacted.size() - out.size();
  }
  kept_bytes_ += out.size();
  return out;
}

Json AtifTrajectory::kept_json(const Json& value) {
  if (value.is_string()) return kept(value.get_ref<const std::string&>());
  if (value.is_array() || value.is_object()) {
    Json out = value.is_array() ? Json::array() : Json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (value.is_array()) out.push_back(kept_json(*it));
      else out[kept(it.key())] = kept_json(it.value());
    }
    return out;
  }
  return value;
}

void AtifTrajectory::append_field(std::string& field, std::string_view text, std::string_view separator) {
  // The separator counts against the field's bound like the text (found by fuzzing: a message
  // one line break past its bound).
  const std::string_view gap = field.empty() || text.empty() ? std::string_view() : separator;
  kept_bytes_ += gap.size();  // and against the trajectory's
  const std::string more = kept(text, field.size() + gap.size());
  if (more.empty()) kept_bytes_ -= gap.size();
  else field.append(gap).append(more);
}

std::size_t AtifTrajectory::add_step(const char* source, std::string_view message, double at_ms) {
  Json step = {{"step_id", steps_.size() + 1}, {"source", source}, {"message", kept(message)}};
  step["extra"] = {{"at_ms", static_cast<double>(static_cast<long long>(at_ms))}};
  steps_.push_back(std::move(step));
  return steps_.size() - 1;
}

void AtifTrajectory::append_message(std::size_t step, std::string_view text, std::string_view separator) {
  std::string& message = steps_.at(step)["message"].get_ref<std::string&>();
  append_field(message, text, separator);
}

void AtifTrajectory::append_reasoning(std::size_t step, std::string_view text) {
  Json& s = steps_.at(step);
  if (!s.contains("reasoning_content")) s["reasoning_content"] = "";
  append_field(s["reasoning_content"].get_ref<std::string&>(), text, "\n");
}

void AtifTrajectory::add_tool_call(std::size_t step, const std::string& call_id, const std::string& function_name,
                                   const Json& arguments) {
  Json& s = steps_.at(step);
  if (!s.contains("tool_calls")) s["tool_calls"] = Json::array();
  // ATIF's arguments are an object; anything else the stream gave is kept under "value".
  Json args = arguments.is_object() ? kept_json(arguments) : Json{{"value", kept_json(arguments)}};
  s["tool_calls"].push_back({{"tool_call_id", kept_id(call_id)}, {"function_name", kept_id(function_name)}, {"arguments", std::move(args)}});
  call_steps_[call_id] = step;
}

bool AtifTrajectory::add_observation(const std::string& call_id, std::string_view content) {
  const auto step = step_of_call(call_id);
  if (!step) {
    ++unmatched_results_;
    return false;
  }
  Json& s = steps_.at(*step);
  if (!s.contains("observation")) s["observation"] = {{"results", Json::array()}};
  s["observation"]["results"].push_back({{"source_call_id", kept_id(call_id)}, {"content", kept(content)}});
  return true;
}

void AtifTrajectory::set_metrics(std::size_t step, std::optional<double> prompt, std::optional<double> completion,
                                 std::optional<double> cached) {
  Json metrics = Json::object();
  if (prompt) metrics["prompt_tokens"] = *prompt;
  if (completion) metrics["completion_tokens"] = *completion;
  if (cached) metrics["cached_tokens"] = *cached;
  if (!metrics.empty()) steps_.at(step)["metrics"] = std::move(metrics);
}

void AtifTrajectory::set_model(std::size_t step, const std::string& model) {
  if (!model.empty()) steps_.at(step)["model_name"] = kept_id(model);
}

void AtifTrajectory::set_timestamp(std::size_t step, const std::string& iso_8601) {
  // Only a plain ISO 8601 instant: the stream is outside input.
  const bool plain = !iso_8601.empty() && iso_8601.size() <= 40 &&
                     std::all_of(iso_8601.begin(), iso_8601.end(), [](char c) { return (c >= '0' && c <= '9') || std::string_view("-:.TZ+").find(c) != std::string_view::npos; });
  if (plain) steps_.at(step)["timestamp"] = kept_id(iso_8601);  // a secret of digits could be in it
}

void AtifTrajectory::set_extra(std::size_t step, const char* key, Json value) {
  steps_.at(step)["extra"][key] = value.is_string() ? Json(kept_id(value.get_ref<const std::string&>())) : std::move(value);
}

std::optional<std::size_t> AtifTrajectory::step_of_call(const std::string& call_id) const {
  const auto found = call_steps_.find(call_id);
  return found == call_steps_.end() ? std::nullopt : std::optional<std::size_t>(found->second);
}

Json AtifTrajectory::finish(const AgentTurn& turn) const {
  Json agent = {{"name", agent_name_}, {"version", agent_version_.empty() ? "unknown" : agent_version_}};
  if (!agent_model_.empty()) agent["model_name"] = agent_model_;
  Json final_metrics = {{"total_steps", steps_.size()}};
  if (turn.input_tokens) final_metrics["total_prompt_tokens"] = *turn.input_tokens;
  if (turn.output_tokens) final_metrics["total_completion_tokens"] = *turn.output_tokens;
  if (turn.cached_input_tokens) final_metrics["total_cached_tokens"] = *turn.cached_input_tokens;
  if (turn.cost_usd) final_metrics["total_cost_usd"] = *turn.cost_usd;
  Json counts = Json::object();
  if (turn.cache_creation_input_tokens) counts["cache_creation_tokens"] = *turn.cache_creation_input_tokens;
  if (turn.reasoning_output_tokens) counts["reasoning_tokens"] = *turn.reasoning_output_tokens;
  if (turn.subagent_runs > 0) counts["subagent_runs"] = turn.subagent_runs;
  if (turn.subagent_usage_unreported) counts["subagent_tokens_unreported"] = true;
  if (!counts.empty()) final_metrics["extra"] = std::move(counts);
  Json trajectory = {{"schema_version", kAtifVersion}};
  if (!session_id_.empty()) trajectory["session_id"] = session_id_;
  trajectory["agent"] = std::move(agent);
  trajectory["steps"] = steps_;
  trajectory["final_metrics"] = std::move(final_metrics);
  trajectory["extra"] = {{"strata",
                          {{"bounds", {{"field_bytes", bounds_.field_bytes}, {"total_bytes", bounds_.total_bytes}}},
                           {"kept_bytes", kept_bytes_},
                           {"cut", {{"fields", cut_fields_}, {"bytes", cut_bytes_}}},
                           {"redactions", redactions_},
                           {"unmatched_tool_results", unmatched_results_}}}};
  return trajectory;
}

}  // namespace strata::model
