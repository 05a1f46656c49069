#include "strata/model/json/text_rules.hpp"

#include <cctype>

#include "strata/model/json/utf.hpp"

namespace strata::model {
namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// ^[first][rest]{0,max_rest}$ over ASCII.
template <class First, class Rest>
bool matches(std::string_view text, First first, Rest rest, std::size_t max_rest) {
  if (text.empty() || text.size() > max_rest + 1 || !first(text[0])) return false;
  for (std::size_t i = 1; i < text.size(); ++i)
    if (!rest(text[i])) return false;
  return true;
}

bool has_line_control(std::string_view text) { return text.find_first_of(std::string_view("\0\r\n", 3)) != std::string_view::npos; }

bool is_digits(std::string_view s) {
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return !s.empty();
}

int number_at(std::string_view s, std::size_t at, std::size_t len) {
  int n = 0;
  for (std::size_t i = at; i < at + len; ++i) n = n * 10 + (s[i] - '0');
  return n;
}

bool is_datetime(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS then optional .digits, then Z.
  if (s.size() < 20 || s.back() != 'Z') return false;
  if (!is_digits(s.substr(0, 4)) || s[4] != '-' || !is_digits(s.substr(5, 2)) || s[7] != '-' ||
      !is_digits(s.substr(8, 2)) || s[10] != 'T' || !is_digits(s.substr(11, 2)) || s[13] != ':' ||
      !is_digits(s.substr(14, 2)) || s[16] != ':' || !is_digits(s.substr(17, 2)))
    return false;
  const std::string_view fraction = s.substr(19, s.size() - 20);
  if (!fraction.empty() && (fraction[0] != '.' || !is_digits(fraction.substr(1)))) return false;
  const int month = number_at(s, 5, 2), day = number_at(s, 8, 2);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && number_at(s, 11, 2) <= 23 &&
         number_at(s, 14, 2) <= 59 && number_at(s, 17, 2) <= 59;
}

// ECMAScript \s beyond ASCII, as UTF-8 sequences.
std::size_t unicode_space_length(std::string_view s, std::size_t i) {
  static constexpr std::string_view kSpaces[] = {"\xC2\xA0", "\xE1\x9A\x80", "\xE2\x80\xA8", "\xE2\x80\xA9",
                                                 "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80", "\xEF\xBB\xBF"};
  for (auto space : kSpaces)
    if (s.substr(i, space.size()) == space) return space.size();
  if (s.substr(i, 2) == "\xE2\x80" && i + 2 < s.size()) {
    const auto b = static_cast<unsigned char>(s[i + 2]);
    if (b >= 0x80 && b <= 0x8A) return 3;  // U+2000..U+200A
  }
  return 0;
}

std::size_t skip_spaces(std::string_view s, std::size_t i) {
  for (;;) {
    if (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) {
      ++i;
    } else if (std::size_t n = i < s.size() ? unicode_space_length(s, i) : 0) {
      i += n;
    } else {
      return i;
    }
  }
}

bool has_private_path_segment(std::string_view lower) {
  static constexpr std::string_view kSegments[] = {"users", "private", "tmp", "home"};
  for (auto segment : kSegments) {
    for (std::size_t at = lower.find(segment); at != std::string_view::npos; at = lower.find(segment, at + 1)) {
      const bool preceded = at == 0 || lower[at - 1] == '/' || lower[at - 1] == '\\';
      const std::size_t end = at + segment.size();
      const bool followed = end < lower.size() && (lower[end] == '/' || lower[end] == '\\');
      if (preceded && followed) return true;
    }
  }
  return false;
}

bool has_credential_assignment(std::string_view lower) {
  auto assignment_after = [&](std::size_t end) {
    const std::size_t i = skip_spaces(lower, end);
    return i < lower.size() && (lower[i] == ':' || lower[i] == '=');
  };
  for (std::size_t at = lower.find("api"); at != std::string_view::npos; at = lower.find("api", at + 1)) {
    std::size_t i = at + 3;
    if (i < lower.size() && (lower[i] == '_' || lower[i] == '-')) ++i;
    if (lower.substr(i, 3) == "key" && assignment_after(i + 3)) return true;
  }
  static constexpr std::string_view kWords[] = {"token", "password", "secret"};
  for (auto word : kWords)
    for (std::size_t at = lower.find(word); at != std::string_view::npos; at = lower.find(word, at + 1))
      if (assignment_after(at + word.size())) return true;
  return false;
}

// Case-insensitive JSON-Schema pattern piece for an ASCII word.
std::string any_case(std::string_view word) {
  std::string out;
  for (char c : word) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      out += '[';
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out += ']';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

bool is_safe_study_text(std::string_view text) {
  // ASCII case folding, what std::tolower does in the "C" locale Strata runs in, without a
  // library call per byte (every evidence id and study text of a ledger passes here).
  std::string lower(text);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return !has_private_path_segment(lower) && !has_credential_assignment(lower) &&
         lower.find("-----begin") == std::string::npos;
}

std::pair<std::size_t, std::size_t> length_bounds(TextRule rule) {
  switch (rule) {
    case TextRule::evidence_id: return {1, 256};
    case TextRule::safe_text: return {1, 2048};
    case TextRule::command: return {1, 512};
    case TextRule::argument: return {0, 2048};
    default: return {0, 0};
  }
}

std::string describe(TextRule rule) {
  switch (rule) {
    case TextRule::any: return "a string";
    case TextRule::identifier: return "an identifier (^[a-z][a-z0-9-]{0,127}$)";
    case TextRule::reference: return "a reference (^[a-z0-9][a-z0-9._:-]{0,255}$)";
    case TextRule::model_reference: return "a model reference (^[a-z0-9][a-z0-9._:/-]{0,255}$)";
    case TextRule::hash: return "a SHA-256 hash (64 lower-case hex digits)";
    case TextRule::environment_name: return "an environment variable name (^[A-Z][A-Z0-9_]{0,127}$)";
    case TextRule::evidence_id: return "an evidence id (1..256 characters, no NUL, CR or LF)";
    case TextRule::safe_text: return "public study text (1..2048 characters)";
    case TextRule::command: return "a command (1..512 characters)";
    case TextRule::argument: return "an argument (at most 2048 characters)";
    case TextRule::datetime: return "a UTC timestamp (YYYY-MM-DDTHH:MM:SS.sssZ)";
  }
  return "a string";
}

std::string json_schema_pattern(TextRule rule) {
  switch (rule) {
    case TextRule::identifier: return "^[a-z][a-z0-9-]{0,127}$";
    case TextRule::reference: return "^[a-z0-9][a-z0-9._:-]{0,255}$";
    case TextRule::model_reference: return "^[a-z0-9][a-z0-9._:/-]{0,255}$";
    case TextRule::hash: return "^[a-f0-9]{64}$";
    case TextRule::environment_name: return "^[A-Z][A-Z0-9_]{0,127}$";
    case TextRule::evidence_id:
    case TextRule::command:
    case TextRule::argument: return "^[^\\u0000\\r\\n]*$";
    case TextRule::datetime: return "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$";
    case TextRule::safe_text: {
      const std::string segment = "(^|[/\\\\])(" + any_case("users") + "|" + any_case("private") + "|" +
                                  any_case("tmp") + "|" + any_case("home") + ")[/\\\\]";
      const std::string credential = "(" + any_case("api") + "[_-]?" + any_case("key") + "|" + any_case("token") +
                                     "|" + any_case("password") + "|" + any_case("secret") + ")\\s*[:=]";
      return "^(?![\\s\\S]*(" + segment + "|" + credential + "|-----" + any_case("begin") + "))";
    }
    case TextRule::any: return {};
  }
  return {};
}

std::optional<std::string> check_text(TextRule rule, std::string_view text) {
  const auto [min_len, max_len] = length_bounds(rule);
  if (max_len != 0) {
    const std::size_t units = utf16_length(text);
    if (units < min_len || units > max_len)
      return "expected " + describe(rule) + ", got " + std::to_string(units) + " characters";
  }
  bool ok = true;
  switch (rule) {
    case TextRule::any: break;
    case TextRule::identifier:
      ok = matches(text, [](char c) { return c >= 'a' && c <= 'z'; }, [](char c) { return lower_alnum(c) || c == '-'; }, 127);
      break;
    case TextRule::reference:
      ok = matches(text, lower_alnum, [](char c) { return lower_alnum(c) || c == '.' || c == '_' || c == ':' || c == '-'; }, 255);
      break;
    case TextRule::model_reference:
      ok = matches(text, lower_alnum,
                   [](char c) { return lower_alnum(c) || c == '.' || c == '_' || c == ':' || c == '/' || c == '-'; }, 255);
      break;
    case TextRule::hash:
      ok = text.size() == 64 && matches(text, [](char c) { return (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'); },
                                        [](char c) { return (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'); }, 63);
      break;
    case TextRule::environment_name:
      ok = matches(text, [](char c) { return c >= 'A' && c <= 'Z'; },
                   [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }, 127);
      break;
    case TextRule::evidence_id: ok = !has_line_control(text); break;
    case TextRule::command:
      if (has_line_control(text)) return std::string("Command cannot contain control characters.");
      break;
    case TextRule::argument:
      if (has_line_control(text)) return std::string("Arguments cannot contain control characters.");
      break;
    case TextRule::safe_text:
      if (!is_safe_study_text(text)) return std::string(kUnsafeTextMessage);
      break;
    case TextRule::datetime: ok = is_datetime(text); break;
  }
  if (!ok) return "expected " + describe(rule);
  return std::nullopt;
}

}  // namespace strata::model
