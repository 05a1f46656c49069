// The usage report's JSONL reading (usage-boundary spec §3): one row per non-blank line, read as
// Python's json.loads reads it (model/json/python_json_line), its line number kept for messages.
#include "strata/app/cm/usage_report.hpp"

#include <algorithm>

#include "strata/model/json/python_json_line.hpp"

namespace strata::app {

namespace {

bool is_blank(std::string_view line) {
  // Python's str.strip() set, restricted to what can occur inside one LF-split line.
  return std::all_of(line.begin(), line.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || (c >= '\x1c' && c <= '\x1f');
  });
}

}  // namespace

std::vector<JsonlRow> parse_jsonl(std::string_view text, const std::string& display_path,
                                  std::vector<std::string>& warnings) {
  std::vector<JsonlRow> rows;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (is_blank(line)) continue;
    std::optional<model::Json> value = model::parse_python_json_line(line);
    if (!value) {
      warnings.push_back("warning: invalid JSON at " + display_path + ":" + std::to_string(line_number));
      continue;
    }
    if (value->is_object()) rows.push_back({line_number, std::move(*value)});
  }
  return rows;
}

}  // namespace strata::app
