#include "strata/model/agents/agent_stream.hpp"

#include "strata/error.hpp"
#include "strata/model/agents/stream_event.hpp"
#include "strata/model/json/json_document.hpp"


namespace strata::model {

bool AgentStreamReader::count_line(std::string_view line) {
  ++turn_.lines;
  turn_.stream_bytes += line.size() + 1;
  return line.find_first_not_of(" \t\r") != std::string_view::npos;
}

std::optional<Json> AgentStreamReader::typed_object(std::string_view line, const char* what) {
  Json value;
  try {
    value = parse_json(line);
  } catch (const Error&) {
    defect("line " + std::to_string(turn_.lines) + " of the event stream is not JSON");
    return std::nullopt;
  }
  if (!value.is_object() || !value.contains("type") || !value["type"].is_string()) {
    defect("line " + std::to_string(turn_.lines) + " of the event stream is not " + what);
    return std::nullopt;
  }
  return value;
}

void AgentStreamReader::defect(std::string why) {
  if (!defect_) defect_ = std::move(why);
}

std::size_t AgentStreamReader::text_bytes(const Json& object, const char* member) {
  const auto it = object.find(member);
  if (it == object.end() || it->is_null()) return 0;
  return it->is_string() ? it->get_ref<const std::string&>().size() : it->dump().size();
}

const std::string& AgentStreamReader::text_member(const Json& object, const char* member) { return event_text(object, member); }

const Json& AgentStreamReader::object_member(const Json& object, const char* member) {
  static const Json none = Json::object();
  const auto it = object.find(member);
  return it != object.end() && it->is_object() ? *it : none;
}

std::optional<double> AgentStreamReader::count_member(const Json& object, const char* member) { return event_count(object, member); }

void AgentStreamReader::add_count(std::optional<double>& sum, std::optional<double> count) {
  if (count) sum = sum.value_or(0) + *count;
}

void AgentStreamReader::add_overlong_line(std::size_t bytes) {
  ++turn_.lines;
  turn_.stream_bytes += bytes;
  defect("line " + std::to_string(turn_.lines) + " of the event stream is longer than Strata reads");
}

std::optional<std::string> AgentStreamReader::failure() const {
  if (defect_) return defect_;
  if (!turn_.completed)
    return error_event_ ? "the agent reported an error and the run did not complete"
                        : std::string("the event stream ended before ") + end_event_;
  if (!turn_.final_message) return "the run completed without a final message";
  return std::nullopt;
}

}  // namespace strata::model
