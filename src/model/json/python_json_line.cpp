// Python json.loads compatibility for one JSONL line (see the header).
#include "strata/model/json/python_json_line.hpp"

#include <string>

namespace strata::model {
namespace {

// Outside strings, each NaN / Infinity literal becomes 0.5 (a "-" before Infinity stays);
// nullopt when there was none, so the caller knows a second parse cannot help.
std::optional<std::string> replace_nonfinite_literals(std::string_view line) {
  std::string out;
  bool in_string = false, replaced = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\' && i + 1 < line.size()) {
        out.push_back(c);
        out.push_back(line[++i]);
        continue;
      }
      if (c == '"') in_string = false;
      out.push_back(c);
      continue;
    }
    if (c == '"') in_string = true;
    if (line.substr(i, 3) == "NaN") {
      out += "0.5";
      i += 2;
      replaced = true;
    } else if (line.substr(i, 8) == "Infinity") {
      out += "0.5";
      i += 7;
      replaced = true;
    } else {
      out.push_back(c);
    }
  }
  if (!replaced) return std::nullopt;
  return out;
}

}  // namespace

std::optional<Json> parse_python_json_line(std::string_view line) {
  // Python refuses a leading byte-order mark ("Unexpected UTF-8 BOM"); nlohmann skips it.
  if (line.substr(0, 3) == "\xEF\xBB\xBF") return std::nullopt;
  Json value = Json::parse(line.begin(), line.end(), nullptr, false);
  if (!value.is_discarded()) return value;
  if (auto rewritten = replace_nonfinite_literals(line)) {
    value = Json::parse(*rewritten, nullptr, false);
    if (!value.is_discarded()) return value;
  }
  return std::nullopt;
}

}  // namespace strata::model
