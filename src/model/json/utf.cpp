#include "strata/model/json/utf.hpp"

#include <cstring>

namespace strata::model {
namespace {

// Length of the well-formed sequence at text[i], or 0 when ill-formed.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (b0 < 0x80) return 1;
  auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    if (i + k >= text.size()) return false;
    const auto b = static_cast<unsigned char>(text[i + k]);
    return b >= lo && b <= hi;
  };
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (b0 == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // no surrogates
  if (b0 >= 0xE1 && b0 <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (b0 == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xF1 && b0 <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

// Decodes the code point starting at text[i] (input assumed UTF-8 or WTF-8).
std::uint32_t decode_at(std::string_view text, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  auto c = [&](std::size_t k) {
    return i + k < text.size() ? static_cast<std::uint32_t>(static_cast<unsigned char>(text[i + k]) & 0x3F) : 0u;
  };
  if (b0 < 0x80) return b0;
  if (b0 < 0xE0) return ((b0 & 0x1Fu) << 6) | c(1);
  if (b0 < 0xF0) return ((b0 & 0x0Fu) << 12) | (c(1) << 6) | c(2);
  return ((b0 & 0x07u) << 18) | (c(1) << 12) | (c(2) << 6) | c(3);
}

// First UTF-16 unit of cp, then the second (0 when there is none).
std::uint32_t first_unit(std::uint32_t cp) { return cp < 0x10000 ? cp : 0xD800 + ((cp - 0x10000) >> 10); }
std::uint32_t second_unit(std::uint32_t cp) { return cp < 0x10000 ? 0 : 0xDC00 + ((cp - 0x10000) & 0x3FF); }

}  // namespace

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::size_t utf16_length(std::string_view utf8) {
  std::size_t units = 0;
  for (unsigned char b : utf8) {
    if ((b & 0xC0) != 0x80) ++units;  // a lead byte starts one code point
    if (b >= 0xF0) ++units;           // four-byte sequences are surrogate pairs
  }
  return units;
}

int compare_utf16(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  if (i == n) return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
  // Two ASCII bytes are their own UTF-16 units (the usual case for member names).
  const auto byte_a = static_cast<unsigned char>(a[i]), byte_b = static_cast<unsigned char>(b[i]);
  if (byte_a < 0x80 && byte_b < 0x80) return byte_a < byte_b ? -1 : 1;
  // Back up to the start of the code point holding the first difference; the shared
  // prefix guarantees both strings have a code point boundary there.
  while (i > 0 && (static_cast<unsigned char>(a[i]) & 0xC0) == 0x80) --i;
  const std::uint32_t ca = decode_at(a, i), cb = decode_at(b, i);
  if (first_unit(ca) != first_unit(cb)) return first_unit(ca) < first_unit(cb) ? -1 : 1;
  return second_unit(ca) < second_unit(cb) ? -1 : (second_unit(ca) > second_unit(cb) ? 1 : 0);
}

std::size_t first_invalid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) { ++i; continue; }
    const std::size_t len = sequence_length(text, i);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

bool is_valid_utf8(std::string_view text) { return first_invalid_utf8(text) == std::string_view::npos; }

}  // namespace strata::model

namespace strata::model {

std::string sanitize_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const auto b0 = static_cast<unsigned char>(bytes[i]);
    if (b0 < 0x80) {
      out.push_back(static_cast<char>(b0));
      ++i;
      continue;
    }
    const std::size_t len = sequence_length(bytes, i);
    if (len > 0) {
      out.append(bytes.data() + i, len);
      i += len;
      continue;
    }
    // Maximal subpart: skip the lead byte and the continuation bytes that were valid so far.
    std::size_t skip = 1;
    unsigned lo = 0x80, hi = 0xBF;
    std::size_t need = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF) need = 1;
    else if (b0 >= 0xE0 && b0 <= 0xEF) need = 2, lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
    else if (b0 >= 0xF0 && b0 <= 0xF4) need = 3, lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
    for (std::size_t k = 1; k <= need && i + k < bytes.size(); ++k) {
      const auto b = static_cast<unsigned char>(bytes[i + k]);
      if (b < lo || b > hi) break;
      lo = 0x80, hi = 0xBF;
      ++skip;
    }
    out += "\xEF\xBF\xBD";
    i += skip;
  }
  return out;
}

std::string truncate_utf16(std::string_view utf8, std::size_t units) {
  std::size_t taken = 0, i = 0;
  while (i < utf8.size()) {
    const auto b = static_cast<unsigned char>(utf8[i]);
    const std::size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    const std::size_t width = len == 4 ? 2 : 1;
    if (taken + width > units) {
      if (width == 2 && taken + 1 == units) return std::string(utf8.substr(0, i)) + "\xEF\xBF\xBD";
      break;
    }
    taken += width;
    i += len;
  }
  return std::string(utf8.substr(0, i));
}

}  // namespace strata::model
