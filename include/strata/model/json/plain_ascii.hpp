#pragma once
// How many of the bytes at `p` (at most `n`, counted in whole words of 8) are plain ASCII
// text: 0x20..0x7F, neither '"' nor '\\'. The loops that parse, write or skip JSON string
// contents (most of a ledger's bytes) test eight bytes at a time with it and stop only where a
// byte needs a look of its own; they then go on byte by byte as before.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace strata::model {

inline std::size_t plain_ascii_prefix(const char* p, std::size_t n) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    const std::uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
    // A byte's high bit ends up set when it is '"' or '\\' (the zero-byte test of x ^ c), below
    // 0x20 (w - 0x20 borrows into it) or at least 0x80 (w itself); with no such byte, none is.
    const std::uint64_t stop = ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) | (w - kOnes * 0x20) | w;
    if ((stop & kHighs) != 0) break;
  }
  return i;
}

}  // namespace strata::model
