#pragma once
// When to try a request again: the server's Retry-After (RFC 9110 §10.2.3) and, without
// one, exponential backoff with jitter. Pure: the caller supplies the clock reading.
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

namespace strata::net {

// The delay a Retry-After value asks for: delta-seconds ("120") or an HTTP-date
// (IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", or the obsolete RFC 850 and asctime forms).
// A date in the past is a zero delay. nullopt when the value is neither.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now);

// Exponential backoff with "equal jitter": retry n (0-based) waits a uniformly drawn time in
// [d/2, d] with d = min(maximum, initial * 2^n), so clients that failed together spread out
// but none retries at once.
class Backoff {
 public:
  Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds maximum, std::uint64_t seed);

  std::chrono::milliseconds delay(int retry);

 private:
  std::chrono::milliseconds initial_, maximum_;
  std::mt19937_64 random_;
};

}  // namespace strata::net
