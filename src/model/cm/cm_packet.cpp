#include "strata/model/cm/cm_packet.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "strata/error.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"

namespace strata::model::cm {
namespace {

bool in(char c, std::string_view set) { return set.find(c) != std::string_view::npos; }
bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

bool matches(std::string_view s, bool (*first)(char), std::string_view rest_extra, std::size_t min_rest,
             std::size_t max_rest) {
  if (s.empty() || !first(s[0]) || s.size() - 1 < min_rest || s.size() - 1 > max_rest) return false;
  return std::all_of(s.begin() + 1, s.end(), [&](char c) { return alnum(c) || in(c, rest_extra); });
}

bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Depth of the deepest value, the root being 0 (§1.4).
int max_depth(const Json& v, int depth) {
  int deepest = depth;
  if (v.is_structured())
    for (const auto& child : v) deepest = std::max(deepest, max_depth(child, depth + 1));
  return deepest;
}

// Python's json module reads an integer of any size and writes it back digit for digit;
// nlohmann turns an integer past 2^64-1 into a double. Such an integer is kept as its lexeme
// in a binary value with this subtype, which append_python writes back verbatim (found by
// fuzzing: it used to be sent as a float repr, against §1.4).
constexpr std::uint64_t kIntegerLexeme = 0x1E;

bool is_integer_lexeme(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

class LexemeKeepingSax : public nlohmann::detail::json_sax_dom_parser<Json> {
 public:
  explicit LexemeKeepingSax(Json& result) : json_sax_dom_parser(result, false) {}
  bool number_float(double value, const std::string& lexeme) {
    if (!is_integer_lexeme(lexeme)) return json_sax_dom_parser::number_float(value, lexeme);
    Json::binary_t digits(std::vector<std::uint8_t>(lexeme.begin(), lexeme.end()), kIntegerLexeme);
    return json_sax_dom_parser::binary(digits);
  }
};

// A count that fits int64 (a larger one is not a usable count: it would wrap, found by fuzzing).
bool non_negative_int(const Json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX);
  return v.is_number_integer() && v.get<std::int64_t>() >= 0;
}

std::optional<std::int64_t> first_count(const Json& object, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto it = object.find(name);
    if (it != object.end() && non_negative_int(*it)) return it->get<std::int64_t>();
  }
  return std::nullopt;
}

void append_python(std::string& out, const Json& v) {
  switch (v.type()) {
    case Json::value_t::object: {
      std::vector<const Json::object_t::value_type*> members;
      for (const auto& m : v.get_ref<const Json::object_t&>()) members.push_back(&m);
      std::sort(members.begin(), members.end(), [](auto* a, auto* b) { return a->first < b->first; });
      out.push_back('{');
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (i) out.push_back(',');
        append_json_string(out, members[i]->first);
        out.push_back(':');
        append_python(out, members[i]->second);
      }
      out.push_back('}');
      break;
    }
    case Json::value_t::array:
      out.push_back('[');
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out.push_back(',');
        append_python(out, v[i]);
      }
      out.push_back(']');
      break;
    case Json::value_t::string: append_json_string(out, v.get_ref<const std::string&>()); break;
    case Json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; break;
    case Json::value_t::number_integer: out += std::to_string(v.get<std::int64_t>()); break;
    case Json::value_t::number_unsigned: out += std::to_string(v.get<std::uint64_t>()); break;
    case Json::value_t::number_float: out += python_float_repr(v.get<double>()); break;
    case Json::value_t::binary:  // only from parse_strict: an integer past 2^64-1
      if (v.get_binary().has_subtype() && v.get_binary().subtype() == kIntegerLexeme) {
        out.append(v.get_binary().begin(), v.get_binary().end());
        break;
      }
      out += "null";
      break;
    default: out += "null"; break;
  }
}

const char* const kPrefixKeys[] = {"safety", "workflow", "project_rules", "role", "output_schema"};

void require_keys_exactly(const Json& object, std::initializer_list<const char*> keys, const std::string& message) {
  if (!object.is_object() || object.size() != keys.size()) throw Error(message);
  for (const char* key : keys)
    if (!object.contains(key)) throw Error(message);
}

}  // namespace

bool is_identifier(std::string_view s) { return matches(s, letter, "._-", 0, 63); }
bool is_call_id(std::string_view s) { return matches(s, alnum, "._-", 0, 127); }
bool is_run_id(std::string_view s) { return matches(s, alnum, "._-", 7, 127); }
bool is_model_name(std::string_view s) { return matches(s, alnum, "._:/+@-", 0, 127); }

bool is_non_blank(std::string_view s) {
  // Python's str.strip() white space: ASCII controls 0x09-0x0D, 0x1C-0x1F, space, and the
  // Unicode spaces; anything else left means non-blank.
  static constexpr std::string_view kUnicodeSpaces[] = {
      "\xC2\x85", "\xC2\xA0", "\xE1\x9A\x80", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80"};
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b >= 0x09 && b <= 0x0D) || (b >= 0x1C && b <= 0x20)) {
      ++i;
      continue;
    }
    bool space = false;
    for (auto u : kUnicodeSpaces)
      if (s.substr(i, u.size()) == u) {
        i += u.size();
        space = true;
        break;
      }
    if (!space && s.substr(i, 2) == "\xE2\x80" && i + 2 < s.size() &&
        static_cast<unsigned char>(s[i + 2]) <= 0x8A) {  // U+2000..U+200A
      i += 3;
      space = true;
    }
    if (!space) return true;
  }
  return false;
}

std::string python_float_repr(double value) {
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf - 1, value, std::chars_format::scientific);
  (void)ec;
  *end = '\0';
  std::string out;
  const char* p = buf;
  if (*p == '-') {
    out.push_back('-');
    ++p;
  }
  std::string digits;
  while (*p && *p != 'e') {
    if (*p != '.') digits.push_back(*p);
    ++p;
  }
  const int exponent = std::atoi(p + 1);
  const int point = exponent + 1;  // digits are 0.d1d2... x 10^point
  const int n = static_cast<int>(digits.size());
  if (point > -4 && point <= 16) {
    if (point <= 0) {
      out += "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
    } else if (point >= n) {
      out += digits + std::string(static_cast<std::size_t>(point - n), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(point)) + "." + digits.substr(static_cast<std::size_t>(point));
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (n > 1) out += "." + digits.substr(1);
  const int e = point - 1;
  char exp[16];
  std::snprintf(exp, sizeof exp, "e%c%02d", e < 0 ? '-' : '+', std::abs(e));
  return out + exp;
}

std::string python_canonical_json(const Json& value) {
  std::string out;
  append_python(out, value);
  return out;
}

Json parse_strict(std::string_view bytes, const std::string& label) {
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") throw Error(label + " is not valid strict UTF-8 JSON");
  try {
    // Our own depth-limited parser first: it refuses what Python's strict decoding refuses
    // and stops deep input early (one container more than the depth rule allows).
    parse_json(bytes, kMaxDepth + 1);
  } catch (const Error& e) {
    const std::string why = e.what();
    if (why.find("nesting deeper") != std::string::npos) throw Error(label + " exceeds the maximum JSON nesting depth");
    if (why.find("unpaired surrogate") != std::string::npos) throw Error(label + " must contain valid Unicode");
    if (why.find("outside the range") != std::string::npos) throw Error(label + " must contain strict JSON numbers");
    throw Error(label + " is not valid strict UTF-8 JSON");
  }
  // Then nlohmann, which keeps integer lexemes apart from fractions and exponents.
  Json value;
  LexemeKeepingSax sax(value);
  if (!Json::sax_parse(bytes.begin(), bytes.end(), &sax) || value.is_discarded())
    throw Error(label + " is not valid strict UTF-8 JSON");
  if (max_depth(value, 0) > kMaxDepth) throw Error(label + " exceeds the maximum JSON nesting depth");
  return value;
}

RoleMessages role_messages(const Json& packet, const std::string& workflow, const std::string& stage,
                           const std::string& role) {
  require_keys_exactly(packet, {"stable_prefix", "dynamic_packet"}, "role packet requires only stable_prefix and dynamic_packet");
  const Json& prefix = packet["stable_prefix"];
  require_keys_exactly(prefix, {"safety", "workflow", "project_rules", "role", "output_schema"},
                       "stable_prefix requires exactly: safety, workflow, project_rules, role, output_schema");
  for (const char* key : kPrefixKeys)
    if (!prefix[key].is_string() || !is_non_blank(prefix[key].get_ref<const std::string&>()))
      throw Error(std::string("stable_prefix.") + key + " must be a non-empty string");
  const Json& dynamic = packet["dynamic_packet"];
  if (!dynamic.is_object()) throw Error("dynamic_packet must be a JSON object");
  static const std::vector<std::string> kRequired = {"constraints", "expected_output", "identifiers", "objective",
                                                      "role", "stage", "workflow"};
  for (const auto& key : kRequired)
    if (!dynamic.contains(key))
      throw Error("dynamic_packet requires: constraints, expected_output, identifiers, objective, role, stage, workflow");
  std::vector<std::string> unknown;
  for (const auto& [key, value] : dynamic.items())
    if (key != "context" && std::find(kRequired.begin(), kRequired.end(), key) == kRequired.end()) unknown.push_back(key);
  if (!unknown.empty()) {
    std::sort(unknown.begin(), unknown.end());
    std::string list;
    for (const auto& k : unknown) list += (list.empty() ? "" : ", ") + k;
    throw Error("dynamic_packet contains unsupported fields: " + list);
  }
  for (const char* key : {"workflow", "stage", "role", "objective", "expected_output"})
    if (!dynamic[key].is_string() || !is_non_blank(dynamic[key].get_ref<const std::string&>()))
      throw Error(std::string("dynamic_packet.") + key + " must be a non-empty string");
  const std::pair<const char*, const std::string*> expected[] = {{"workflow", &workflow}, {"stage", &stage}, {"role", &role}};
  for (const auto& [key, flag] : expected)
    if (dynamic[key].get_ref<const std::string&>() != *flag)
      throw Error(std::string("dynamic_packet.") + key + " must match --" + key);
  if (!dynamic["identifiers"].is_object()) throw Error("dynamic_packet.identifiers must be a JSON object");
  const Json& constraints = dynamic["constraints"];
  if (!constraints.is_array() || !std::all_of(constraints.begin(), constraints.end(), [](const Json& c) {
        return c.is_string() && is_non_blank(c.get_ref<const std::string&>());
      }))
    throw Error("dynamic_packet.constraints must be a list of strings");
  if (dynamic.contains("context") && !dynamic["context"].is_object()) throw Error("dynamic_packet.context must be a JSON object");

  RoleMessages messages;
  for (const char* key : kPrefixKeys) {
    if (!messages.system.empty()) messages.system += "\n\n";
    messages.system += std::string("[") + key + "]\n" + prefix[key].get<std::string>();
  }
  messages.user = python_canonical_json(dynamic);
  return messages;
}

std::string request_body(const std::string& model, const RoleMessages& messages, const Json* parameters) {
  std::string body = "{\"model\":";
  append_json_string(body, model);
  body += ",\"messages\":[{\"role\":\"system\",\"content\":";
  append_json_string(body, messages.system);
  body += "},{\"role\":\"user\",\"content\":";
  append_json_string(body, messages.user);
  body += "}],\"stream\":false";
  if (parameters != nullptr)
    for (const auto& [name, value] : parameters->items()) {
      body += ",";
      append_json_string(body, name);
      body += ":" + compact_json(value);
    }
  body += "}";
  return body;
}

std::string completion_text(const Json& response) {
  const auto choices = response.find("choices");
  if (choices == response.end() || !choices->is_array() || choices->empty() || !(*choices)[0].is_object())
    throw Error("provider response has no completion choice");
  const auto message = (*choices)[0].find("message");
  if (message == (*choices)[0].end() || !message->is_object()) throw Error("provider response has no completion message");
  const auto content = message->find("content");
  if (content == message->end() || !content->is_string()) throw Error("provider response content is not text");
  return content->get<std::string>();
}

Usage extract_usage(const Json* response) {
  Usage usage;
  if (response == nullptr || !response->is_object()) return usage;
  const auto it = response->find("usage");
  if (it == response->end() || !it->is_object()) return usage;
  const Json& u = *it;
  const auto input = first_count(u, {"input_tokens", "prompt_tokens"});
  const auto output = first_count(u, {"output_tokens", "completion_tokens"});
  if (!input || !output) return usage;
  usage.observed = true;
  usage.input_tokens = *input;
  usage.output_tokens = *output;
  const Json details = u.contains("prompt_tokens_details") && u["prompt_tokens_details"].is_object()
                           ? u["prompt_tokens_details"]
                           : Json::object();
  usage.cache_read_tokens = first_count(u, {"cache_read_input_tokens"});
  if (!usage.cache_read_tokens) usage.cache_read_tokens = first_count(details, {"cached_tokens"});
  usage.cache_write_tokens = first_count(u, {"cache_creation_input_tokens"});
  if (!usage.cache_write_tokens) usage.cache_write_tokens = first_count(details, {"cache_write_tokens"});
  return usage;
}

std::optional<std::string> effective_model(const Json& response) {
  const auto it = response.find("model");
  if (it == response.end() || !it->is_string() || !is_model_name(it->get_ref<const std::string&>())) return std::nullopt;
  return it->get<std::string>();
}

}  // namespace strata::model::cm
