// ISO 8601 timestamps as Python 3.11's datetime.fromisoformat reads them, for the usage report's
// ordering of runs (usage-boundary spec §3).
#include <cstdint>
#include <optional>
#include <string_view>

#include "strata/app/cm/usage_report.hpp"

namespace strata::app {

namespace {

bool digits_at(std::string_view s, std::size_t pos, std::size_t count, int& value) {
  if (pos + count > s.size()) return false;
  value = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    value = value * 10 + (s[i] - '0');
  }
  return true;
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool valid_date(int y, int m, int d) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

// HH[:MM[:SS[.f+]]] or HH[MM[SS[.f+]]] (fraction separator '.' or ','), as microseconds.
std::optional<std::int64_t> parse_clock(std::string_view s, int max_hour) {
  int parts[3] = {0, 0, 0};
  std::size_t pos = 0;
  bool separated = false;
  for (int comp = 0; comp < 3; ++comp) {
    if (!digits_at(s, pos, 2, parts[comp])) return std::nullopt;
    pos += 2;
    if (pos == s.size() || comp == 2) break;
    if (comp == 0) separated = s[pos] == ':';
    if (separated) {
      if (s[pos] != ':') break;
      ++pos;
    } else if (s[pos] < '0' || s[pos] > '9') {
      break;
    }
  }
  std::int64_t micros = 0;
  if (pos < s.size()) {
    if (s[pos] != '.' && s[pos] != ',') return std::nullopt;
    ++pos;
    const std::size_t digits = s.size() - pos;
    if (digits == 0) return std::nullopt;
    for (std::size_t i = 0; i < digits; ++i) {
      const char c = s[pos + i];
      if (c < '0' || c > '9') return std::nullopt;
      if (i < 6) micros = micros * 10 + (c - '0');
    }
    for (std::size_t i = digits; i < 6; ++i) micros *= 10;
  }
  if (parts[0] > max_hour || parts[1] > 59 || parts[2] > 59) return std::nullopt;
  return ((parts[0] * 60 + parts[1]) * 60 + parts[2]) * std::int64_t{1000000} + micros;
}

std::size_t utf8_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  return 4;
}

}  // namespace

std::optional<std::int64_t> parse_iso_instant(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // The reference turns a trailing "Z" into "+00:00" before parsing.
  std::string normalized(text);
  if (normalized.back() == 'Z') normalized.replace(normalized.size() - 1, 1, "+00:00");
  const std::string_view s = normalized;

  // Date: YYYY-MM-DD or YYYYMMDD (ISO week dates are not accepted; see the docs).
  int y = 0, m = 0, d = 0;
  std::size_t pos = 0;
  if (s.size() >= 10 && s[4] == '-') {
    if (!digits_at(s, 0, 4, y) || !digits_at(s, 5, 2, m) || s[7] != '-' || !digits_at(s, 8, 2, d))
      return std::nullopt;
    pos = 10;
  } else {
    if (!digits_at(s, 0, 4, y) || !digits_at(s, 4, 2, m) || !digits_at(s, 6, 2, d)) return std::nullopt;
    pos = 8;
  }
  if (!valid_date(y, m, d)) return std::nullopt;
  std::int64_t instant = days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)) * 86400 * 1000000;
  if (pos == s.size()) return instant;

  // Any one character separates the date from the time.
  pos += utf8_length(static_cast<unsigned char>(s[pos]));
  if (pos >= s.size()) return std::nullopt;
  const std::string_view time = s.substr(pos);
  std::size_t zone = time.find_first_of("+-");
  const std::optional<std::int64_t> clock = parse_clock(time.substr(0, zone), 23);
  if (!clock) return std::nullopt;
  instant += *clock;
  if (zone == std::string_view::npos) return instant;  // naive: UTC
  const std::string_view offset_text = time.substr(zone + 1);
  if (offset_text.size() < 2 || offset_text.size() == 3) return std::nullopt;
  const std::optional<std::int64_t> offset = parse_clock(offset_text, 23);
  if (!offset) return std::nullopt;
  return time[zone] == '-' ? instant + *offset : instant - *offset;
}

}  // namespace strata::app
