#include "strata/model/study/hex_text.hpp"

#include <cstring>

namespace strata::model {
namespace {

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

std::string hex_of(const unsigned char* bytes, std::size_t length) {
  std::string hex(2 * length, '0');
  for (std::size_t i = 0; i < length; ++i) {
    hex[2 * i] = kHex[bytes[i] >> 4];
    hex[2 * i + 1] = kHex[bytes[i] & 0xF];
  }
  return hex;
}

bool bytes_of_hex(std::string_view hex, unsigned char* out, std::size_t length) {
  if (hex.size() != 2 * length) return false;
  for (std::size_t i = 0; i < length; ++i) {
    const char* digit_hi = std::strchr(kHex, hex[2 * i]);
    const char* digit_lo = std::strchr(kHex, hex[2 * i + 1]);
    if (hex[2 * i] == '\0' || hex[2 * i + 1] == '\0' || digit_hi == nullptr || digit_lo == nullptr) return false;
    out[i] = static_cast<unsigned char>((digit_hi - kHex) << 4 | (digit_lo - kHex));
  }
  return true;
}

}  // namespace strata::model
