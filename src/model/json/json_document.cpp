#include "strata/model/json/json_document.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "strata/model/json/plain_ascii.hpp"
#include "strata/model/json/utf.hpp"

namespace strata::model {
namespace {

class Parser {
 public:
  Parser(std::string_view text, int max_depth) : text_(text), max_depth_(max_depth) {}

  Json parse_document() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") fail(0, "byte-order mark before the JSON text");
    skip_whitespace();
    Json value = parse_value(0);
    skip_whitespace();
    if (pos_ != text_.size()) fail(pos_, "unexpected content after the JSON value");
    return value;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& reason) const {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < at && i < text_.size(); ++i) {
      const auto b = static_cast<unsigned char>(text_[i]);
      if (b == '\n') {
        ++line;
        column = 1;
      } else if ((b & 0xC0) != 0x80) {
        ++column;
      }
    }
    throw Error("invalid JSON: " + reason, std::to_string(line) + ":" + std::to_string(column));
  }

  void skip_whitespace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void expect_literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail(pos_, "unexpected character");
    pos_ += word.size();
  }

  Json parse_value(int depth) {
    if (pos_ >= text_.size()) fail(pos_, "unexpected end of input");
    switch (text_[pos_]) {
      case '{': return parse_object(depth + 1);
      case '[': return parse_array(depth + 1);
      case '"': return Json(parse_string());
      case 't': expect_literal("true"); return Json(true);
      case 'f': expect_literal("false"); return Json(false);
      case 'n': expect_literal("null"); return Json(nullptr);
      default:
        if (text_[pos_] == '-' || (text_[pos_] >= '0' && text_[pos_] <= '9')) return Json(parse_number());
        fail(pos_, "unexpected character");
    }
  }

  void enter(int depth) {
    if (depth > max_depth_) fail(pos_, "nesting deeper than " + std::to_string(max_depth_) + " levels");
  }

  Json parse_object(int depth) {
    enter(depth);
    ++pos_;
    // Members are gathered in a plain vector first: the object's own element type has a
    // const key, so growing it would deep-copy every member already parsed.
    std::vector<std::pair<std::string, Json>> members;
    skip_whitespace();
    if (peek() == '}') {
      ++pos_;
      return Json::object();
    }
    for (;;) {
      skip_whitespace();
      if (peek() != '"') fail(pos_, "expected a string key");
      std::string key = parse_string();
      skip_whitespace();
      if (peek() != ':') fail(pos_, "expected ':' after an object key");
      ++pos_;
      skip_whitespace();
      Json value = parse_value(depth);
      // Duplicate keys: last value wins, at the first occurrence's position.
      auto it = std::find_if(members.begin(), members.end(), [&](const auto& m) { return m.first == key; });
      if (it == members.end()) {
        members.emplace_back(std::move(key), std::move(value));
      } else {
        it->second = std::move(value);
      }
      skip_whitespace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        break;
      }
      fail(pos_, "expected ',' or '}' in an object");
    }
    Json object = Json::object();
    auto& out = object.get_ref<Json::object_t&>();
    out.reserve(members.size());
    for (auto& [key, value] : members) out.emplace_back(std::move(key), std::move(value));
    return object;
  }

  Json parse_array(int depth) {
    enter(depth);
    ++pos_;
    Json array = Json::array();
    skip_whitespace();
    if (peek() == ']') {
      ++pos_;
      return array;
    }
    for (;;) {
      skip_whitespace();
      array.push_back(parse_value(depth));
      skip_whitespace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return array;
      }
      fail(pos_, "expected ',' or ']' in an array");
    }
  }

  unsigned parse_hex4(std::size_t at) {
    if (at + 4 > text_.size()) fail(at, "truncated \\u escape");
    unsigned value = 0;
    for (std::size_t i = at; i < at + 4; ++i) {
      const char c = text_[i];
      value <<= 4;
      if (c >= '0' && c <= '9') value |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') value |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') value |= static_cast<unsigned>(c - 'A' + 10);
      else fail(i, "invalid hex digit in \\u escape");
    }
    return value;
  }

  std::string parse_string() {
    const std::size_t start = ++pos_;
    std::string out;
    // Fast path: copy runs of plain bytes in one go.
    std::size_t run = start;
    for (;;) {
      pos_ += plain_ascii_prefix(text_.data() + pos_, text_.size() - pos_);
      if (pos_ >= text_.size()) fail(start - 1, "unterminated string");
      const auto b = static_cast<unsigned char>(text_[pos_]);
      if (b == '"') {
        out.append(text_.data() + run, pos_ - run);
        ++pos_;
        return out;
      }
      if (b < 0x20) fail(pos_, "control character in a string (escape it)");
      if (b == '\\') {
        out.append(text_.data() + run, pos_ - run);
        parse_escape(out);
        run = pos_;
        continue;
      }
      if (b >= 0x80) {
        const std::size_t bad = first_invalid_utf8(text_.substr(pos_, 4));
        if (bad == 0) fail(pos_, "invalid UTF-8");
        // Advance over one whole sequence.
        std::size_t len = b >= 0xF0 ? 4 : (b >= 0xE0 ? 3 : 2);
        if (pos_ + len > text_.size() || (bad != std::string_view::npos && bad < len)) fail(pos_, "invalid UTF-8");
        pos_ += len;
        continue;
      }
      ++pos_;
    }
  }

  void parse_escape(std::string& out) {
    const std::size_t at = pos_;
    if (pos_ + 1 >= text_.size()) fail(at, "truncated escape");
    const char c = text_[pos_ + 1];
    pos_ += 2;
    switch (c) {
      case '"': out.push_back('"'); return;
      case '\\': out.push_back('\\'); return;
      case '/': out.push_back('/'); return;
      case 'b': out.push_back('\b'); return;
      case 'f': out.push_back('\f'); return;
      case 'n': out.push_back('\n'); return;
      case 'r': out.push_back('\r'); return;
      case 't': out.push_back('\t'); return;
      case 'u': break;
      default: fail(at, "invalid escape");
    }
    unsigned unit = parse_hex4(pos_);
    pos_ += 4;
    if (unit >= 0xDC00 && unit <= 0xDFFF) fail(at, "unpaired surrogate escape");
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      if (text_.substr(pos_, 2) != "\\u") fail(at, "unpaired surrogate escape");
      const unsigned low = parse_hex4(pos_ + 2);
      if (low < 0xDC00 || low > 0xDFFF) fail(at, "unpaired surrogate escape");
      pos_ += 6;
      append_utf8(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
      return;
    }
    append_utf8(out, unit);
  }

  double parse_number() {
    const std::size_t start = pos_;
    auto digits = [&] {
      const std::size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (digits() == 0) {
      fail(start, "invalid number");
    }
    if (peek() == '.') {
      ++pos_;
      if (digits() == 0) fail(start, "invalid number");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) fail(start, "invalid number");
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
    if (ec == std::errc::result_out_of_range) {
      // Underflow becomes zero (as in ECMAScript); overflow would be Infinity: refused.
      // strtod tells the two apart (rare path, so the copy does not matter).
      const std::string literal(text_.substr(start, pos_ - start));
      value = std::strtod(literal.c_str(), nullptr);
      if (!std::isfinite(value)) fail(start, "number outside the range of a double");
    } else if (ec != std::errc() || end != text_.data() + pos_ || !std::isfinite(value)) {
      fail(start, "number outside the range of a double");
    }
    return value;
  }

  std::string_view text_;
  int max_depth_;
  std::size_t pos_ = 0;
};

}  // namespace

Json parse_json(std::string_view text, int max_depth) { return Parser(text, max_depth).parse_document(); }

}  // namespace strata::model
