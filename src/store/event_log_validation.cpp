// Everything the writer checks before it takes a lock (usage-boundary spec §2.2, §2.5,
// §2.7), in the reference's order and with its messages. Nothing here writes.
#include <time.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <ctime>
#include <set>
#include <string>

#include "event_log_internal.hpp"
#include "strata/model/cm/lifecycle_state.hpp"
#include "strata/model/json/utf.hpp"

namespace strata::store::event_log {
namespace {

bool is_ascii_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_tail_char(char c) { return is_ascii_alpha(c) || is_ascii_digit(c) || c == '.' || c == '_' || c == '-'; }

bool matches(std::string_view text, bool first_may_be_digit, std::size_t min_tail, std::size_t max_tail) {
  if (text.empty() || text.size() - 1 < min_tail || text.size() - 1 > max_tail) return false;
  if (!(is_ascii_alpha(text[0]) || (first_may_be_digit && is_ascii_digit(text[0])))) return false;
  return std::all_of(text.begin() + 1, text.end(), is_tail_char);
}

// Code points of UTF-8 text; an ill-formed byte becomes 0xDC00 + byte (surrogateescape).
std::vector<std::uint32_t> decode(std::string_view text) {
  std::vector<std::uint32_t> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    std::size_t length = lead < 0x80 ? 1 : (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : (lead & 0xF8) == 0xF0 ? 4 : 0;
    if (length > 1 && i + length <= text.size() && model::is_valid_utf8(text.substr(i, length))) {
      std::uint32_t cp = lead & (0xFF >> (length + 1));
      for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
      out.push_back(cp);
      i += length;
    } else if (length == 1) {
      out.push_back(lead);
      ++i;
    } else {
      out.push_back(0xDC00 + lead);
      ++i;
    }
  }
  return out;
}

// Python's str.isspace() set (what str.strip() removes).
bool is_python_space(std::uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool has_line_break_or_nul(std::string_view text) { return text.find_first_of(std::string_view("\n\r\0", 3)) != std::string_view::npos; }

// ---- --data-json ----

const std::set<std::string, std::less<>> kReservedFields = {
    "schema_version", "event_id", "run_id", "at", "workflow", "event", "phase",
    "runtime", "project", "project_path", "specs_path", "detail"};
const std::set<std::string, std::less<>> kTokenFields = {"input_tokens", "output_tokens", "cache_read_tokens",
                                                         "cache_write_tokens"};

// The key folded the way Python's re.IGNORECASE matches it against an ASCII pattern:
// ASCII letters lower-cased, and the four non-ASCII letters that match ASCII ones
// (U+0130 İ, U+0131 ı -> i; U+017F ſ -> s; U+212A Kelvin -> k). Others never match.
std::string fold_for_sensitive_match(std::string_view key) {
  std::string out;
  for (const std::uint32_t cp : decode(key)) {
    if (cp < 0x80) out += static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
    else if (cp == 0x130 || cp == 0x131) out += 'i';
    else if (cp == 0x17F) out += 's';
    else if (cp == 0x212A) out += 'k';
    else out += '\x01';
  }
  return out;
}

// api[_-]?key|authorization|cookie|password|passwd|private[_-]?key|recovery[_-]?code|secret|token
bool is_sensitive_key(std::string_view key) {
  static constexpr std::array<std::string_view, 15> kNeedles = {
      "apikey", "api_key", "api-key", "authorization", "cookie", "password", "passwd", "privatekey",
      "private_key", "private-key", "recoverycode", "recovery_code", "recovery-code", "secret", "token"};
  const std::string folded = fold_for_sensitive_match(key);
  return std::any_of(kNeedles.begin(), kNeedles.end(),
                     [&](std::string_view needle) { return folded.find(needle) != std::string::npos; });
}

// Depth-first in document order, like the reference's recursion: the first offending key wins.
void reject_sensitive_keys(const OrderedJson& value, const std::string& path, bool allow_token_fields) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      const bool allowed = allow_token_fields && path == "data" && kTokenFields.count(key) != 0;
      if (is_sensitive_key(key) && !allowed) throw UsageError("sensitive log field is forbidden: " + path + "." + key);
      reject_sensitive_keys(child, path + "." + key, allow_token_fields);
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      reject_sensitive_keys(value[i], path + "[" + std::to_string(i) + "]", allow_token_fields);
  }
}

// ---- model events ----

const OrderedJson* member(const OrderedJson& data, const std::string& key) {
  const auto it = data.find(key);
  return it == data.end() ? nullptr : &*it;
}

// data.get(key) is None: absent or JSON null.
bool is_none(const OrderedJson* value) { return value == nullptr || value->is_null(); }

std::string join_sorted(std::vector<std::string> items) {
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

void reject_unsupported(const std::string& event, const OrderedJson& data, const std::set<std::string, std::less<>>& allowed) {
  std::vector<std::string> unknown;
  for (const auto& [key, child] : data.items())
    if (allowed.count(key) == 0) unknown.push_back(key);
  if (!unknown.empty()) throw UsageError(event + " contains unsupported fields: " + join_sorted(unknown));
}

void validate_short_text(const std::string& field, const OrderedJson& data, bool required) {
  const OrderedJson* value = member(data, field);
  if (is_none(value) && !required) return;
  if (value == nullptr || !value->is_string() || is_blank(value->get_ref<const std::string&>()))
    throw UsageError("model event requires a non-empty " + field);
  if (!is_short_event_text(value->get_ref<const std::string&>()))
    throw UsageError("model event " + field + " must be one line and at most 160 characters");
}

bool string_matches(const OrderedJson* value, bool (*rule)(std::string_view)) {
  return value != nullptr && value->is_string() && rule(value->get_ref<const std::string&>());
}

bool is_one_of(const OrderedJson* value, std::initializer_list<std::string_view> options) {
  if (value == nullptr || !value->is_string()) return false;
  const auto& text = value->get_ref<const std::string&>();
  return std::find(options.begin(), options.end(), text) != options.end();
}

// isinstance(value, int) and not bool: a JSON integer lexeme (5.0 and 1e2 are floats).
bool is_integer(const OrderedJson& value) { return value.is_number_integer(); }
bool is_negative(const OrderedJson& value) { return value.is_number_integer() && !value.is_number_unsigned() && value.get<std::int64_t>() < 0; }

// ---- --at ----

bool read_digits(std::string_view text, std::size_t& pos, std::size_t count, int& out) {
  if (pos + count > text.size()) return false;
  out = 0;
  for (std::size_t k = 0; k < count; ++k) {
    if (!is_ascii_digit(text[pos + k])) return false;
    out = out * 10 + (text[pos + k] - '0');
  }
  pos += count;
  return true;
}

bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

std::string two(int value) { return std::string(1, static_cast<char>('0' + value / 10)) + static_cast<char>('0' + value % 10); }

std::string format_timestamp(int year, int month, int day, int hour, int minute, int second, int offset_minutes) {
  char date[16];
  std::snprintf(date, sizeof date, "%04d", year);
  const int magnitude = std::abs(offset_minutes);
  return std::string(date) + "-" + two(month) + "-" + two(day) + "T" + two(hour) + ":" + two(minute) + ":" +
         two(second) + (offset_minutes < 0 ? "-" : "+") + two(magnitude / 60) + ":" + two(magnitude % 60);
}

Timestamp now_local() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  const int offset = static_cast<int>(local.tm_gmtoff / 60);
  Timestamp at;
  at.text = format_timestamp(local.tm_year + 1900, local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min,
                             local.tm_sec, offset);
  at.month = at.text.substr(0, 7);
  return at;
}

}  // namespace

bool is_identifier(std::string_view text) { return matches(text, false, 0, 63); }
bool is_call_id(std::string_view text) { return matches(text, true, 0, 127); }
bool is_run_id(std::string_view text) { return matches(text, true, 7, 127); }

std::size_t code_points(std::string_view text) { return decode(text).size(); }

bool is_blank(std::string_view text) {
  const auto cps = decode(text);
  return std::all_of(cps.begin(), cps.end(), is_python_space);
}

std::string python_repr(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const char quote = has_single && text.find('"') == std::string_view::npos ? '"' : '\'';
  static constexpr char kHex[] = "0123456789abcdef";
  const auto hex = [&](std::uint32_t value, int digits) {
    std::string out;
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += kHex[(value >> shift) & 0xF];
    return out;
  };
  std::string out(1, quote);
  for (const std::uint32_t cp : decode(text)) {
    const bool escaped_byte = cp >= 0xDC80 && cp <= 0xDCFF;  // never a decoded UTF-8 character
    if (cp == static_cast<std::uint32_t>(quote) || cp == '\\') out += '\\', out += static_cast<char>(cp);
    else if (cp == '\t') out += "\\t";
    else if (cp == '\n') out += "\\n";
    else if (cp == '\r') out += "\\r";
    else if (cp < 0x20 || cp == 0x7F) out += "\\x" + hex(cp, 2);
    else if (cp < 0x80) out += static_cast<char>(cp);
    else if (escaped_byte) out += "\\udc" + hex(cp & 0xFF, 2);
    else if (cp <= 0xA0 || cp == 0xAD) out += "\\x" + hex(cp, 2);
    else if ((cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) ||
             cp == 0x3000 || cp == 0xFEFF || (cp >= 0xE000 && cp <= 0xF8FF) || (cp >= 0xFFF9 && cp <= 0xFFFB))
      out += "\\u" + hex(cp, 4);
    else
      model::append_utf8(out, cp);
  }
  out += quote;
  return out;
}

Timestamp parse_timestamp(const std::optional<std::string>& raw) {
  if (!raw) return now_local();
  std::string text = *raw;
  if (!text.empty() && text.back() == 'Z') text = text.substr(0, text.size() - 1) + "+00:00";
  const UsageError invalid("--at must be an ISO-8601 timestamp");
  std::size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_digits(text, pos, 4, year) || pos >= text.size() || text[pos++] != '-' || !read_digits(text, pos, 2, month) ||
      pos >= text.size() || text[pos++] != '-' || !read_digits(text, pos, 2, day))
    throw invalid;
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) throw invalid;
  if (pos == text.size()) throw UsageError("--at must include a timezone offset");  // a date alone is naive
  if (text[pos] != 'T' && text[pos] != ' ') throw invalid;
  ++pos;
  if (!read_digits(text, pos, 2, hour)) throw invalid;
  if (pos < text.size() && text[pos] == ':') {
    ++pos;
    if (!read_digits(text, pos, 2, minute)) throw invalid;
    if (pos < text.size() && text[pos] == ':') {
      ++pos;
      if (!read_digits(text, pos, 2, second)) throw invalid;
      if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) {
        const std::size_t start = ++pos;
        while (pos < text.size() && is_ascii_digit(text[pos])) ++pos;
        if (pos == start || pos - start > 9) throw invalid;  // fractional seconds are dropped
      }
    }
  }
  if (hour > 23 || minute > 59 || second > 59) throw invalid;
  if (pos == text.size()) throw UsageError("--at must include a timezone offset");
  if (text[pos] != '+' && text[pos] != '-') throw invalid;
  const bool negative = text[pos++] == '-';
  int offset_hours = 0, offset_minutes = 0;
  if (!read_digits(text, pos, 2, offset_hours)) throw invalid;
  if (pos < text.size()) {
    if (text[pos] == ':') ++pos;
    if (!read_digits(text, pos, 2, offset_minutes)) throw invalid;
  }
  if (pos != text.size() || offset_hours > 23 || offset_minutes > 59) throw invalid;
  const int offset = (negative ? -1 : 1) * (offset_hours * 60 + offset_minutes);
  Timestamp at;
  at.text = format_timestamp(year, month, day, hour, minute, second, offset);
  at.month = at.text.substr(0, 7);
  return at;
}

OrderedJson parse_data_json(const std::string& raw, const std::string& event) {
  if (raw.size() > 8192) throw UsageError("--data-json cannot exceed 8192 UTF-8 bytes");
  OrderedJson data = parse_strict_object(raw);
  std::vector<std::string> overlap;
  for (const auto& [key, value] : data.items())
    if (kReservedFields.count(key) != 0) overlap.push_back(key);
  if (!overlap.empty()) throw UsageError("--data-json cannot override reserved fields: " + join_sorted(overlap));
  reject_sensitive_keys(data, "data", event == "model_usage");
  return data;
}

void validate_model_call(const std::optional<std::string>& phase, const OrderedJson& data) {
  reject_unsupported("model_call", data,
                     {"call_id", "stage", "role", "adapter", "requested_model", "source", "purpose"});
  if (phase != "claimed") throw UsageError("model_call events require phase claimed");
  if (!string_matches(member(data, "call_id"), is_call_id)) throw UsageError("model_call requires a valid call_id");
  if (!string_matches(member(data, "role"), is_identifier)) throw UsageError("model_call requires a valid role");
  for (const char* field : {"stage", "adapter", "requested_model", "source", "purpose"})
    validate_short_text(field, data, true);
}

void validate_model_usage(const std::optional<std::string>& phase, const OrderedJson& data) {
  reject_unsupported("model_usage", data,
                     {"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "call_id", "role",
                      "adapter", "requested_model", "effective_model", "provider", "source", "purpose", "stage",
                      "node", "feature", "task", "usage_state", "duration_ms", "outcome", "attempt"});
  if (phase != "complete") throw UsageError("model_usage events require phase complete");
  if (!string_matches(member(data, "call_id"), is_call_id)) throw UsageError("model_usage requires a valid call_id");
  if (!string_matches(member(data, "role"), is_identifier)) throw UsageError("model_usage requires a valid role");
  const OrderedJson* usage_state = member(data, "usage_state");
  if (!is_one_of(usage_state, {"observed", "unavailable"}))
    throw UsageError("model_usage usage_state must be observed or unavailable");
  if (!is_one_of(member(data, "outcome"), {"success", "error", "blocked", "cancelled"}))
    throw UsageError("model_usage outcome must be success, error, blocked, or cancelled");
  for (const char* field : {"adapter", "requested_model", "source", "purpose", "stage"}) validate_short_text(field, data, true);
  for (const char* field : {"effective_model", "provider", "node", "feature", "task"}) validate_short_text(field, data, false);
  const OrderedJson* attempt = member(data, "attempt");
  if (!is_none(attempt) && (!is_integer(*attempt) || is_negative(*attempt) || attempt->get<std::uint64_t>() < 1))
    throw UsageError("model_usage attempt must be a positive integer");
  const bool unavailable = usage_state->get_ref<const std::string&>() == "unavailable";
  static constexpr std::array<const char*, 4> kTokens = {"input_tokens", "output_tokens", "cache_read_tokens",
                                                         "cache_write_tokens"};
  if (unavailable && std::any_of(kTokens.begin(), kTokens.end(), [&](const char* key) { return data.contains(key); }))
    throw UsageError("unavailable model_usage cannot contain token counts");
  if (!unavailable)
    for (const char* field : {"input_tokens", "output_tokens"})
      if (!data.contains(field)) throw UsageError(std::string("observed model_usage requires ") + field);
  // The reference iterates a set here (no stable order); this is the documented fixed order.
  for (const char* field : {"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "duration_ms"}) {
    const OrderedJson* value = member(data, field);
    if (value != nullptr && (!is_integer(*value) || is_negative(*value)))
      throw UsageError(std::string("model_usage ") + field + " must be a non-negative integer");
  }
}

ValidatedEvent validate_event(const LogEventArgs& args) {
  ValidatedEvent out;
  const auto identifier = [](const std::string& label, const std::string& value) {
    if (!is_identifier(value))
      throw UsageError(label + " must match '^[A-Za-z][A-Za-z0-9._-]{0,63}$'; got " + python_repr(value));
    return value;
  };
  out.workflow = identifier("--workflow", args.workflow);
  out.event = identifier("--event", args.event);
  if (args.phase) out.phase = identifier("--phase", *args.phase);
  out.runtime = identifier("--runtime", args.runtime);

  if (is_blank(args.detail)) throw UsageError("--detail cannot be empty");
  if (code_points(args.detail) > 500) throw UsageError("--detail cannot exceed 500 characters");
  if (has_line_break_or_nul(args.detail)) throw UsageError("--detail cannot contain control-line characters");
  if (!model::is_valid_utf8(args.detail)) throw UsageError("--detail must be valid UTF-8");
  out.detail = args.detail;

  out.data = parse_data_json(args.data_json.value_or("{}"), out.event);
  // usage-lifecycle spec §1.2: after the generic --data-json rules, before the model rules.
  if (auto lifecycle_error = model::lifecycle::input_error(out.event, out.phase, out.data)) throw UsageError(*lifecycle_error);
  if (out.event == "model_usage") validate_model_usage(out.phase, out.data);
  if (out.event == "model_call") validate_model_call(out.phase, out.data);

  out.at = parse_timestamp(args.at);

  const auto directory = [](const std::string& label, const std::optional<std::string>& raw) -> std::optional<std::string> {
    if (!raw) return std::nullopt;
    const std::string path = resolve_path(*raw);
    if (!is_directory(path)) throw UsageError(label + " is not an existing directory: " + path);
    if (!model::is_valid_utf8(path)) throw UsageError(label + " must be a valid UTF-8 path");
    return path;
  };
  out.project_root = directory("--project-root", args.project_root);
  out.specs_dir = directory("--specs-dir", args.specs_dir);

  if (args.project && !args.project->empty()) {
    if (code_points(*args.project) > 120 || has_line_break_or_nul(*args.project))
      throw UsageError("--project must be one line and at most 120 characters");
    if (!model::is_valid_utf8(*args.project)) throw UsageError("--project must be valid UTF-8");
    out.project = *args.project;
  } else if (out.project_root) {
    out.project = out.project_root->substr(out.project_root->rfind('/') + 1);
  } else {
    out.project = "unscoped";
  }

  // The reference checks an explicit --run-id after taking the locks; checking it here
  // means a refused write creates nothing (as in the preflight of the JS shape).
  if (args.run_id) {
    if (!is_run_id(*args.run_id)) throw UsageError("invalid --run-id");
    out.run_id = *args.run_id;
  }
  return out;
}

}  // namespace strata::store::event_log

namespace strata::store {

bool is_short_event_text(std::string_view text) {
  return !event_log::is_blank(text) && event_log::code_points(text) <= 160 && !event_log::has_line_break_or_nul(text);
}

}  // namespace strata::store
