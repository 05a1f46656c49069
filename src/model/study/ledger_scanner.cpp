#include "strata/model/study/ledger_scanner.hpp"

#include "strata/model/json/plain_ascii.hpp"

namespace strata::model {
namespace {

constexpr std::size_t kMaxHeaderBytes = 1 << 20;  // a real header is a few hundred bytes
constexpr std::size_t kMaxKeyBytes = 64;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

LedgerScanner::LedgerScanner(std::function<void(Range)> on_observation) : on_observation_(std::move(on_observation)) {}

void LedgerScanner::feed(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size() && !unsupported_;) {
    if (in_element_) {
      i = skip_element(bytes, i);
      continue;
    }
    step(bytes[i++]);
    ++offset_;
  }
}

// Inside an observation, only brackets outside strings matter (its own parse checks the rest):
// a tight loop over the bulk of a ledger's bytes. Returns where it stopped (the element's end
// or the end of `bytes`).
std::size_t LedgerScanner::skip_element(std::string_view bytes, std::size_t i) {
  const std::size_t start = i;
  const char* p = bytes.data();
  const std::size_t n = bytes.size();
  while (i < n) {
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
        ++i;
      }
      i += plain_ascii_prefix(p + i, n - i);
      while (i < n && p[i] != '"' && p[i] != '\\') ++i;
      if (i == n) break;
      if (p[i] == '\\') escaped_ = true;
      else in_string_ = false;
      ++i;
      continue;
    }
    const char c = p[i++];
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if ((c == '}' || c == ']') && --depth_ == 2) {
      in_element_ = false;
      place_ = Place::after_element;
      offset_ += i - start;
      on_observation_(Range{element_begin_, offset_});
      return i;
    }
  }
  offset_ += i - start;
  return i;
}

bool LedgerScanner::finish() const { return !unsupported_ && place_ == Place::after_array && !in_string_ && !in_element_; }

void LedgerScanner::step(char c) {
  if (place_ == Place::before_array || place_ == Place::after_array) outside_array(c);
  else inside_array(c);
}

// The top-level text around the array: copied to the header, with the top-level keys noted.
void LedgerScanner::outside_array(char c) {
  header_ += c;
  if (header_.size() > kMaxHeaderBytes) unsupported_ = true;
  if (in_string_) {
    const bool key_byte = depth_ == 1 && !(c == '"' && !escaped_);
    if (escaped_) escaped_ = false;
    else if (c == '\\') escaped_ = true;
    else if (c == '"') in_string_ = false;
    if (key_byte) {
      if (last_key_.size() < kMaxKeyBytes) last_key_ += c;
      else key_too_long_ = true;
    }
    return;
  }
  if (is_space(c)) return;
  if (c == '"') {
    in_string_ = true;
    after_colon_ = false;
    if (depth_ == 1) {
      last_key_.clear();
      key_too_long_ = false;
    }
    return;
  }
  if (depth_ == 1 && c == ':') {
    after_colon_ = true;
    return;
  }
  if (c == '[' && depth_ == 1 && after_colon_ && !key_too_long_ && last_key_ == "observations") {
    if (place_ == Place::after_array) {
      unsupported_ = true;  // two arrays: the document parse decides which one counts
      return;
    }
    place_ = Place::array_start;
    depth_ = 2;
    return;
  }
  after_colon_ = false;
  if (c == '{' || c == '[') ++depth_;
  else if (c == '}' || c == ']') --depth_;
}

// Between the elements of the observations array: objects separated by single commas.
void LedgerScanner::inside_array(char c) {
  if (is_space(c)) return;
  const bool element_allowed = place_ == Place::array_start || place_ == Place::before_element;
  const bool end_allowed = place_ == Place::array_start || place_ == Place::after_element;
  if (c == '{' && element_allowed) {
    in_element_ = true;
    element_begin_ = offset_;
    depth_ = 3;
  } else if (c == ',' && place_ == Place::after_element) {
    place_ = Place::before_element;
  } else if (c == ']' && end_allowed) {
    header_ += c;
    depth_ = 1;
    after_colon_ = false;
    place_ = Place::after_array;
  } else {
    unsupported_ = true;
  }
}

}  // namespace strata::model
