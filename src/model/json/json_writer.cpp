#include "strata/model/json/json_writer.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/plain_ascii.hpp"
#include "strata/model/json/utf.hpp"

namespace strata::model {
namespace {

using Member = Json::object_t::value_type;

std::uint64_t index_value(std::string_view key) {
  std::uint64_t n = 0;
  for (char c : key) n = n * 10 + static_cast<std::uint64_t>(c - '0');
  return n;
}

bool index_less(const Member* a, const Member* b) { return index_value(a->first) < index_value(b->first); }

// ECMAScript property order: array-index keys ascending, then the rest as given by
// `rest_order` (insertion order, or UTF-16 order for the canonical form). The result
// lives in `out`, a scratch vector the caller reuses (one per nesting level).
template <class RestOrder>
void ordered_members(const Json& object, std::string_view skip, RestOrder rest_order, std::vector<const Member*>& out) {
  out.clear();
  const auto& members = object.get_ref<const Json::object_t&>();
  for (const auto& member : members)
    if (is_array_index(member.first)) out.push_back(&member);
  const std::size_t indices = out.size();
  std::sort(out.begin(), out.end(), index_less);
  for (const auto& member : members)
    if (!is_array_index(member.first) && (skip.empty() || member.first != skip)) out.push_back(&member);
  rest_order(out, indices);
}

// One scratch vector per nesting level, reused across the whole document.
std::vector<const Member*>& scratch(std::size_t level) {
  // A deque: growing it for a deeper level keeps the shallower levels' references valid.
  thread_local std::deque<std::vector<const Member*>> buffers;
  if (buffers.size() <= level) buffers.resize(level + 1);
  return buffers[level];
}

void append_scalar(std::string& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: out += "null"; break;
    case Json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; break;
    case Json::value_t::string: append_json_string(out, value.get_ref<const std::string&>()); break;
    // Integers (only values built in code have these types; parsed numbers are doubles) are
    // written exactly: token counts above 2^53 must not be rounded (found by fuzzing).
    case Json::value_t::number_integer: out += std::to_string(value.get<std::int64_t>()); break;
    case Json::value_t::number_unsigned: out += std::to_string(value.get<std::uint64_t>()); break;
    case Json::value_t::number_float: append_ecmascript_number(out, value.get<double>()); break;
    default: out += "null"; break;  // binary/discarded never occur in our values
  }
}

// The canonical form's order for the members that are not array indices: UTF-16 code units.
void canonical_rest_order(std::vector<const Member*>& all, std::size_t first_rest) {
  std::sort(all.begin() + static_cast<std::ptrdiff_t>(first_rest), all.end(),
            [](const Member* a, const Member* b) { return compare_utf16(a->first, b->first) < 0; });
}

void append_canonical(std::string& out, const Json& value, std::string_view skip, std::size_t level) {
  if (value.is_object()) {
    auto& members = scratch(level);
    ordered_members(value, skip, canonical_rest_order, members);
    out.push_back('{');
    bool first = true;
    for (const Member* m : members) {
      if (!first) out.push_back(',');
      first = false;
      append_json_string(out, m->first);
      out.push_back(':');
      append_canonical(out, m->second, {}, level + 1);
    }
    out.push_back('}');
  } else if (value.is_array()) {
    out.push_back('[');
    bool first = true;
    for (const auto& element : value) {
      if (!first) out.push_back(',');
      first = false;
      append_canonical(out, element, {}, level + 1);
    }
    out.push_back(']');
  } else {
    append_scalar(out, value);
  }
}

void keep_insertion_order(std::vector<const Member*>&, std::size_t) {}

// indent < 0: compact. Otherwise JSON.stringify's layout with `indent` spaces per level.
void append_stringified(std::string& out, const Json& value, int indent, int level) {
  auto newline = [&](int at_level) {
    if (indent < 0) return;
    out.push_back('\n');
    out.append(static_cast<std::size_t>(indent * at_level), ' ');
  };
  if (value.is_object()) {
    if (value.empty()) {
      out += "{}";
      return;
    }
    out.push_back('{');
    bool first = true;
    auto& members = scratch(static_cast<std::size_t>(level));
    ordered_members(value, {}, keep_insertion_order, members);
    for (const Member* m : members) {
      if (!first) out.push_back(',');
      first = false;
      newline(level + 1);
      append_json_string(out, m->first);
      out += indent < 0 ? ":" : ": ";
      append_stringified(out, m->second, indent, level + 1);
    }
    newline(level);
    out.push_back('}');
  } else if (value.is_array()) {
    if (value.empty()) {
      out += "[]";
      return;
    }
    out.push_back('[');
    bool first = true;
    for (const auto& element : value) {
      if (!first) out.push_back(',');
      first = false;
      newline(level + 1);
      append_stringified(out, element, indent, level + 1);
    }
    newline(level);
    out.push_back(']');
  } else {
    append_scalar(out, value);
  }
}

}  // namespace

bool is_array_index(std::string_view key) {
  if (key.empty() || key.size() > 10) return false;
  if (key.size() > 1 && key[0] == '0') return false;
  for (char c : key)
    if (c < '0' || c > '9') return false;
  return index_value(key) <= 4294967294ULL;
}

// Bytes that end a run of plain text: '"', '\\', controls, and 0xED (the lead byte of a
// WTF-8 lone surrogate, checked below). Plain runs are copied at once.
constexpr std::array<bool, 256> kStringSpecial = [] {
  std::array<bool, 256> special{};
  for (int b = 0; b < 0x20; ++b) special[static_cast<std::size_t>(b)] = true;
  special['"'] = special['\\'] = special[0xED] = true;
  return special;
}();

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.reserve(out.size() + text.size() + 2);
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    i += plain_ascii_prefix(text.data() + i, text.size() - i);  // none of those is special
    if (i == text.size()) break;
    const auto b = static_cast<unsigned char>(text[i]);
    if (!kStringSpecial[b]) continue;
    const char* escape = nullptr;
    switch (b) {
      case '"': escape = "\\\""; break;
      case '\\': escape = "\\\\"; break;
      case '\b': escape = "\\b"; break;
      case '\t': escape = "\\t"; break;
      case '\n': escape = "\\n"; break;
      case '\f': escape = "\\f"; break;
      case '\r': escape = "\\r"; break;
      default: break;
    }
    const bool control = b < 0x20 && escape == nullptr;
    // WTF-8 lone surrogate: ED A0..BF xx.
    const bool surrogate = b == 0xED && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0xA0;
    if (escape == nullptr && !control && !surrogate) continue;
    out.append(text.data() + run, i - run);
    if (escape != nullptr) {
      out += escape;
    } else if (control) {
      out += "\\u00";
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 0xF]);
    } else {
      const unsigned unit = 0xD000u | ((static_cast<unsigned>(text[i + 1]) & 0x3Fu) << 6) |
                            (static_cast<unsigned>(text[i + 2]) & 0x3Fu);
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(unit >> shift) & 0xF]);
      i += 2;
    }
    run = i + 1;
  }
  out.append(text.data() + run, text.size() - run);
  out.push_back('"');
}

void append_canonical_json(std::string& out, const Json& value, std::string_view skip_top_level_key) {
  append_canonical(out, value, skip_top_level_key, 0);
}

std::string canonical_json(const Json& value, std::string_view skip_top_level_key) {
  std::string out;
  append_canonical(out, value, skip_top_level_key, 0);
  return out;
}

MemberRange append_canonical_json_marking(std::string& out, const Json& object, std::string_view key) {
  if (!object.is_object()) {
    append_canonical(out, object, {}, 0);
    return {};
  }
  auto& members = scratch(0);
  ordered_members(object, {}, canonical_rest_order, members);
  MemberRange marked;
  bool found = false;
  out.push_back('{');
  for (std::size_t i = 0; i < members.size(); ++i) {
    const Member* m = members[i];
    const std::size_t comma = out.size();
    if (i > 0) out.push_back(',');
    const std::size_t begin = out.size();
    append_json_string(out, m->first);
    out.push_back(':');
    append_canonical(out, m->second, {}, 1);
    if (!found && m->first == key && !is_array_index(key)) {  // as canonical_json's skip
      found = true;
      // The comma before it, or (when it comes first) the one after it, goes with it.
      marked = {i > 0 ? comma : begin, out.size()};
      if (i == 0 && members.size() > 1) ++marked.end;
    }
  }
  out.push_back('}');
  return marked;
}

std::string compact_json(const Json& value) {
  std::string out;
  append_stringified(out, value, -1, 0);
  return out;
}

std::string pretty_json(const Json& value, int level) {
  std::string out;
  append_stringified(out, value, 2, level);
  return out;
}

std::string pretty_json(const Json& value) {
  std::string out;
  append_stringified(out, value, 2, 0);
  return out;
}

std::string PrettyNesting::feed(std::string_view piece) {
  std::string out;
  out.reserve(piece.size() + piece.size() / 16);
  for (const char c : piece) {
    if (newline_pending_) out += "\n  ";
    newline_pending_ = c == '\n';
    if (!newline_pending_) out += c;
  }
  return out;
}

}  // namespace strata::model
