#pragma once
// Bytes as lower-case hex, and back (digests, a saved hash state, the viewer's row hashes and
// access tokens).
#include <cstddef>
#include <string>
#include <string_view>

namespace strata::model {

std::string hex_of(const unsigned char* bytes, std::size_t length);

// False (out unspecified) unless `hex` is exactly 2 * length lower-case hex digits.
bool bytes_of_hex(std::string_view hex, unsigned char* out, std::size_t length);

}  // namespace strata::model
