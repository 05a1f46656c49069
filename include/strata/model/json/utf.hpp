#pragma once
// UTF-8 / UTF-16 helpers. Artifact lengths are counted in UTF-16 code units and keys are
// ordered by UTF-16 code units, as ECMAScript does.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata::model {

// Appends the UTF-8 (or, for a lone surrogate, WTF-8) encoding of code point cp.
void append_utf8(std::string& out, std::uint32_t cp);

// Number of UTF-16 code units of a UTF-8 (or WTF-8) string.
std::size_t utf16_length(std::string_view utf8);

// Three-way comparison of two UTF-8 strings by their UTF-16 code-unit sequences.
int compare_utf16(std::string_view a, std::string_view b);

// True when the text is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view text);

// Byte offset of the first ill-formed sequence, or npos.
std::size_t first_invalid_utf8(std::string_view text);

}  // namespace strata::model

namespace strata::model {

// Decodes bytes as UTF-8 the way TextDecoder does (ill-formed subsequences become
// U+FFFD, maximal subparts) and returns well-formed UTF-8.
std::string sanitize_utf8(std::string_view bytes);

// The first `units` UTF-16 code units of a well-formed UTF-8 string, re-encoded as
// UTF-8 (a surrogate pair cut in half becomes U+FFFD, as String.slice + encode does).
std::string truncate_utf16(std::string_view utf8, std::size_t units);

}  // namespace strata::model
