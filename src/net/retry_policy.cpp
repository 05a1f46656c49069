#include "strata/net/retry_policy.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace strata::net {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A cursor over the header value with the few token readers the three date forms need.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  bool done() const { return pos_ == text_.size(); }
  bool literal(std::string_view s) {
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  // Exactly `count` digits (count 0: one or more).
  std::optional<int> digits(std::size_t count) {
    std::size_t end = pos_;
    while (end < text_.size() && text_[end] >= '0' && text_[end] <= '9' && (count == 0 || end - pos_ < count)) ++end;
    if (end == pos_ || (count != 0 && end - pos_ != count) || end - pos_ > 9) return std::nullopt;
    int value = 0;
    for (std::size_t i = pos_; i < end; ++i) value = value * 10 + (text_[i] - '0');
    pos_ = end;
    return value;
  }
  std::string_view letters() {
    std::size_t end = pos_;
    while (end < text_.size() && ((text_[end] >= 'A' && text_[end] <= 'Z') || (text_[end] >= 'a' && text_[end] <= 'z'))) ++end;
    const std::string_view word = text_.substr(pos_, end - pos_);
    pos_ = end;
    return word;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

std::optional<unsigned> month_number(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (unsigned i = 0; i < kMonths.size(); ++i)
    if (kMonths[i] == name) return i + 1;
  return std::nullopt;
}

bool day_name(std::string_view name, bool long_form) {
  static constexpr std::array<std::string_view, 7> kShort = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  static constexpr std::array<std::string_view, 7> kLong = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                                            "Friday", "Saturday", "Sunday"};
  const auto& names = long_form ? kLong : kShort;
  return std::find(names.begin(), names.end(), name) != names.end();
}

struct TimeOfDay {
  int hour = 0, minute = 0, second = 0;
};

std::optional<TimeOfDay> time_of_day(Cursor& c) {
  TimeOfDay t;
  const auto h = c.digits(2);
  if (!h || !c.literal(":")) return std::nullopt;
  const auto m = c.digits(2);
  if (!m || !c.literal(":")) return std::nullopt;
  const auto s = c.digits(2);
  if (!s || *h > 23 || *m > 59 || *s > 60) return std::nullopt;
  t.hour = *h;
  t.minute = *m;
  t.second = *s;
  return t;
}

std::optional<std::chrono::sys_seconds> make_time(int year, std::optional<unsigned> month, int day, const TimeOfDay& t) {
  if (!month) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(*month),
                                         std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return std::nullopt;
  return std::chrono::sys_days(date) + std::chrono::hours(t.hour) + std::chrono::minutes(t.minute) + seconds(t.second);
}

std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view text) {
  Cursor c(text);
  const std::string_view weekday = c.letters();
  if (c.literal(", ")) {
    const bool imf = day_name(weekday, false);
    if (!imf && !day_name(weekday, true)) return std::nullopt;
    const auto day = c.digits(2);
    if (!day) return std::nullopt;
    if (imf) {  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
      if (!c.literal(" ")) return std::nullopt;
      const auto month = month_number(c.letters());
      if (!c.literal(" ")) return std::nullopt;
      const auto year = c.digits(4);
      if (!year || !c.literal(" ")) return std::nullopt;
      const auto t = time_of_day(c);
      if (!t || !c.literal(" GMT") || !c.done()) return std::nullopt;
      return make_time(*year, month, *day, *t);
    }
    // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT (a two-digit year: 70-99 -> 19xx, else 20xx)
    if (!c.literal("-")) return std::nullopt;
    const auto month = month_number(c.letters());
    if (!c.literal("-")) return std::nullopt;
    const auto yy = c.digits(2);
    if (!yy || !c.literal(" ")) return std::nullopt;
    const auto t = time_of_day(c);
    if (!t || !c.literal(" GMT") || !c.done()) return std::nullopt;
    return make_time(*yy >= 70 ? 1900 + *yy : 2000 + *yy, month, *day, *t);
  }
  // asctime: Sun Nov  6 08:49:37 1994
  if (!day_name(weekday, false) || !c.literal(" ")) return std::nullopt;
  const auto month = month_number(c.letters());
  if (!c.literal(" ")) return std::nullopt;
  c.literal(" ");  // a one-digit day is padded with a space
  const auto day = c.digits(0);
  if (!day || *day > 31 || !c.literal(" ")) return std::nullopt;
  const auto t = time_of_day(c);
  if (!t || !c.literal(" ")) return std::nullopt;
  const auto year = c.digits(4);
  if (!year || !c.done()) return std::nullopt;
  return make_time(*year, month, *day, *t);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<milliseconds> parse_retry_after(std::string_view value, std::chrono::system_clock::time_point now) {
  value = trim(value);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    // delta-seconds; absurdly long values saturate (the caller caps the wait anyway).
    std::int64_t secs = 0;
    for (char ch : value) secs = std::min<std::int64_t>(secs * 10 + (ch - '0'), 1'000'000'000);
    return std::chrono::duration_cast<milliseconds>(seconds(secs));
  }
  const auto when = parse_http_date(value);
  if (!when) return std::nullopt;
  const auto delay = std::chrono::duration_cast<milliseconds>(*when - now);
  return std::max(delay, milliseconds(0));
}

Backoff::Backoff(milliseconds initial, milliseconds maximum, std::uint64_t seed)
    : initial_(std::max(initial, milliseconds(1))), maximum_(std::max(maximum, initial_)), random_(seed) {}

milliseconds Backoff::delay(int retry) {
  milliseconds d = initial_;
  for (int i = 0; i < retry && d < maximum_; ++i) d *= 2;
  d = std::min(d, maximum_);
  std::uniform_int_distribution<std::int64_t> half(d.count() / 2, d.count());
  return milliseconds(half(random_));
}

}  // namespace strata::net
