// JSON as the Python reference writes and reads it (usage-boundary spec §2.3, §2.5, §2.9):
// compact json.dumps text (the log lines, the event-id input, the ASCII-only stdout line),
// the strict --data-json parser, and UUIDv5 event ids.
#include <openssl/evp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

#include "event_log_internal.hpp"

namespace strata::store {
namespace {

using event_log::OrderedJson;

constexpr char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, std::uint32_t unit) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(unit >> shift) & 0xF];
}

// Decodes one UTF-8 sequence at text[i]; returns the code point and advances i, or
// returns nullopt (and advances by one byte) for an ill-formed byte.
std::optional<std::uint32_t> next_code_point(std::string_view text, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return ++i, lead;
  std::size_t length = 0;
  std::uint32_t cp = 0, min = 0;
  if ((lead & 0xE0) == 0xC0) length = 2, cp = lead & 0x1F, min = 0x80;
  else if ((lead & 0xF0) == 0xE0) length = 3, cp = lead & 0x0F, min = 0x800;
  else if ((lead & 0xF8) == 0xF0) length = 4, cp = lead & 0x07, min = 0x10000;
  if (length == 0 || i + length > text.size()) return ++i, std::nullopt;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return ++i, std::nullopt;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return ++i, std::nullopt;
  i += length;
  return cp;
}

// json.dumps string literal. ensure_ascii=False: only '"', '\\' and C0 controls are
// escaped; ensure_ascii=True: everything outside ' '..'~' (UTF-16 pairs above the BMP;
// an ill-formed byte b is written \udcXX, as Python's surrogateescape shows it).
void append_string(std::string& out, std::string_view text, bool ensure_ascii) {
  out += '"';
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20 || (ensure_ascii && c == 0x7F)) append_u_escape(out, c);
          else out += static_cast<char>(c);
      }
      continue;
    }
    const std::size_t start = i;
    const auto cp = next_code_point(text, i);
    if (!ensure_ascii) {
      out.append(text.substr(start, i - start));
    } else if (!cp) {
      append_u_escape(out, 0xDC00 + c);
    } else if (*cp >= 0x10000) {
      append_u_escape(out, 0xD800 + ((*cp - 0x10000) >> 10));
      append_u_escape(out, 0xDC00 + ((*cp - 0x10000) & 0x3FF));
    } else {
      append_u_escape(out, *cp);
    }
  }
  out += '"';
}

// float.__repr__: the shortest round-trip digits, fixed notation when the decimal point
// position is in (-4, 16], else d.ddde±XX.
std::string python_float(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-Infinity" : "Infinity";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  std::string sign;
  if (text.front() == '-') sign = "-", text.remove_prefix(1);
  const std::size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e))
    if (c != '.') digits += c;
  const int exponent = std::stoi(std::string(text.substr(e + 1)));
  const int point = exponent + 1;  // digits before the decimal point
  const int count = static_cast<int>(digits.size());
  if (point > -4 && point <= 16) {
    if (point <= 0) return sign + "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
    if (point >= count) return sign + digits + std::string(static_cast<std::size_t>(point - count), '0') + ".0";
    return sign + digits.substr(0, static_cast<std::size_t>(point)) + "." + digits.substr(static_cast<std::size_t>(point));
  }
  std::string mantissa = digits.substr(0, 1);
  if (count > 1) mantissa += "." + digits.substr(1);
  const int magnitude = std::abs(exponent);
  return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (magnitude < 10 ? "0" : "") + std::to_string(magnitude);
}

void append_value(std::string& out, const OrderedJson& value, bool sort_keys, bool ensure_ascii) {
  switch (value.type()) {
    case OrderedJson::value_t::null: out += "null"; return;
    case OrderedJson::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case OrderedJson::value_t::number_integer: out += std::to_string(value.get<std::int64_t>()); return;
    case OrderedJson::value_t::number_unsigned: out += std::to_string(value.get<std::uint64_t>()); return;
    case OrderedJson::value_t::number_float: out += python_float(value.get<double>()); return;
    case OrderedJson::value_t::string: append_string(out, value.get_ref<const std::string&>(), ensure_ascii); return;
    case OrderedJson::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value) {
        if (!first) out += ',';
        first = false;
        append_value(out, element, sort_keys, ensure_ascii);
      }
      out += ']';
      return;
    }
    case OrderedJson::value_t::object: {
      std::vector<const std::string*> keys;
      std::vector<const OrderedJson*> values;
      for (const auto& [key, member] : value.items()) {
        keys.push_back(&key);
        values.push_back(&member);
      }
      std::vector<std::size_t> order(keys.size());
      for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
      // UTF-8 byte order is code-point order, which is Python's str order.
      if (sort_keys) std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return *keys[a] < *keys[b]; });
      out += '{';
      bool first = true;
      for (const std::size_t k : order) {
        if (!first) out += ',';
        first = false;
        append_string(out, *keys[k], ensure_ascii);
        out += ':';
        append_value(out, *values[k], sort_keys, ensure_ascii);
      }
      out += '}';
      return;
    }
    default:
      throw std::logic_error("python_json: unsupported JSON value type");
  }
}

// The DOM builder of nlohmann, refusing numbers Python and JavaScript would disagree on:
// non-finite values (1e400) and integers that do not fit 64 bits (nlohmann would turn
// them into doubles, changing the text and so the event id).
class StrictDomBuilder : public nlohmann::detail::json_sax_dom_parser<OrderedJson> {
 public:
  explicit StrictDomBuilder(OrderedJson& document) : json_sax_dom_parser(document, false) {}
  bool number_float(double value, const std::string& lexeme) {
    if (!std::isfinite(value) || lexeme.find_first_of(".eE") == std::string::npos) {
      bad_number = true;
      return false;
    }
    return json_sax_dom_parser::number_float(value, lexeme);
  }
  // nlohmann reports a double overflow (1e400) as out_of_range 406 before number_float.
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
    if constexpr (std::is_same_v<Exception, nlohmann::detail::out_of_range>) bad_number = bad_number || error.id == 406;
    return json_sax_dom_parser::parse_error(position, token, error);
  }
  bool bad_number = false;
};

}  // namespace

std::string python_json(const nlohmann::ordered_json& value, bool sort_keys, bool ensure_ascii) {
  std::string out;
  append_value(out, value, sort_keys, ensure_ascii);
  return out;
}

std::string uuid5_url(std::string_view name) {
  // 6ba7b811-9dad-11d1-80b4-00c04fd430c8 (RFC 4122 NameSpace_URL)
  static constexpr unsigned char kNamespace[16] = {0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1,
                                                   0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8};
  std::string input(reinterpret_cast<const char*>(kNamespace), sizeof kNamespace);
  input.append(name);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(input.data(), input.size(), digest, &length, EVP_sha1(), nullptr) != 1 || length < 16)
    throw std::runtime_error("SHA-1 failed in OpenSSL");
  digest[6] = static_cast<unsigned char>((digest[6] & 0x0F) | 0x50);
  digest[8] = static_cast<unsigned char>((digest[8] & 0x3F) | 0x80);
  std::string text;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += kHex[digest[i] >> 4];
    text += kHex[digest[i] & 0xF];
  }
  return text;
}

std::string event_id_for(const nlohmann::ordered_json& record) {
  OrderedJson identity = record;
  identity.erase("at");
  identity.erase("event_id");
  return uuid5_url(python_json(identity, /*sort_keys=*/true, /*ensure_ascii=*/false));
}

namespace event_log {

// Strict parse of --data-json (§2.5 rule 2 and the §5 number rules).
OrderedJson parse_strict_object(const std::string& raw) {
  static constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (raw.compare(0, kBom.size(), kBom) == 0) throw UsageError("--data-json must be a JSON object");
  OrderedJson value;
  StrictDomBuilder builder(value);
  const bool ok = OrderedJson::sax_parse(raw, &builder);
  if (builder.bad_number)
    throw UsageError("--data-json numbers must be finite and integers must fit in 64 bits");
  if (!ok || builder.is_errored() || !value.is_object()) throw UsageError("--data-json must be a JSON object");
  return value;
}

}  // namespace event_log
}  // namespace strata::store
