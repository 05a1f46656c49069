#include "strata/model/json/ecmascript_number.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <system_error>

namespace strata::model {

void append_ecmascript_number(std::string& out, double value) {
  if (value == 0) {  // also -0
    out.push_back('0');
    return;
  }
  // Shortest round-trip digits in scientific form: "-d.ddde+XX".
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf - 1, value, std::chars_format::scientific);
  (void)ec;  // 64 bytes always suffice for a double
  *end = '\0';
  const char* p = buf;
  if (*p == '-') {
    out.push_back('-');
    ++p;
  }
  char digits[32];
  int k = 0;
  while (p < end && *p != 'e') {
    if (*p != '.') digits[k++] = *p;
    ++p;
  }
  const int exponent = std::atoi(p + 1);  // "e+XX" / "e-XX"
  const int n = exponent + 1;              // position of the decimal point
  if (k <= n && n <= 21) {
    out.append(digits, static_cast<std::size_t>(k));
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, static_cast<std::size_t>(n));
    out.push_back('.');
    out.append(digits + n, static_cast<std::size_t>(k - n));
  } else if (-6 < n && n <= 0) {
    out.append("0.");
    out.append(static_cast<std::size_t>(-n), '0');
    out.append(digits, static_cast<std::size_t>(k));
  } else {
    out.push_back(digits[0]);
    if (k > 1) {
      out.push_back('.');
      out.append(digits + 1, static_cast<std::size_t>(k - 1));
    }
    out.push_back('e');
    out.push_back(n - 1 >= 0 ? '+' : '-');
    out.append(std::to_string(std::abs(n - 1)));
  }
}

std::string ecmascript_number(double value) {
  std::string out;
  append_ecmascript_number(out, value);
  return out;
}

double round_to_fixed(double value, int digits) {
  // toFixed picks the multiple of 10^-digits nearest to the exact binary value, ties to
  // the larger magnitude. glibc printf prints the exact binary expansion when asked for
  // enough digits (a double has at most 1074 fractional digits), so the rounding is
  // done on that exact decimal text.
  static constexpr int kExactDigits = 1100;
  std::string exact(kExactDigits + 32, '\0');
  const int len = std::snprintf(exact.data(), exact.size(), "%.*f", kExactDigits, std::fabs(value));
  exact.resize(static_cast<std::size_t>(len));
  const std::size_t keep = exact.find('.') + 1 + static_cast<std::size_t>(digits);
  const bool round_up = exact[keep] >= '5';  // >= half, exact ties included
  std::string fixed = exact.substr(0, digits == 0 ? keep - 1 : keep);
  if (round_up) {
    int i = static_cast<int>(fixed.size()) - 1;
    for (; i >= 0; --i) {
      if (fixed[static_cast<std::size_t>(i)] == '.') continue;
      if (fixed[static_cast<std::size_t>(i)] == '9') {
        fixed[static_cast<std::size_t>(i)] = '0';
      } else {
        ++fixed[static_cast<std::size_t>(i)];
        break;
      }
    }
    if (i < 0) fixed.insert(fixed.begin(), '1');
  }
  const double rounded = std::strtod(fixed.c_str(), nullptr);
  return value < 0 ? -rounded : rounded;
}

}  // namespace strata::model
