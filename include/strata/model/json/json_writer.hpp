#pragma once
// JSON text exactly as ECMAScript JSON.stringify writes it, and the canonical form of
// the content hash (spec §2): members sorted by UTF-16 code units, array-index keys
// first in numeric order, no whitespace.
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::model {

// True for the canonical decimal form of an integer 0 <= n <= 4294967294.
bool is_array_index(std::string_view key);

// Appends a JSON string literal with ECMAScript escaping (lone surrogates held as
// WTF-8 are written as lower-case \udxxx escapes).
void append_json_string(std::string& out, std::string_view text);

// Canonical text (spec §2.1). When skip_top_level_key is not empty, that member of the
// top-level object is left out (the content hash excludes its own contentHash).
void append_canonical_json(std::string& out, const Json& value, std::string_view skip_top_level_key = {});
std::string canonical_json(const Json& value, std::string_view skip_top_level_key = {});

// Where one top-level member lies in a canonical text, with the comma that joins it to a
// neighbour: the text without [begin, end) is the canonical text without that member. Empty
// (begin == end) when the object has no such member.
struct MemberRange {
  std::size_t begin = 0, end = 0;
};

// Appends the canonical text of `object` (all members) and returns where its member `key` lies
// in `out` (a key that is an array index is never marked, as canonical_json never skips one). One serialisation then serves two hashes: a ledger's, which covers each
// observation's contentHash, and the observation's own, which leaves it out.
MemberRange append_canonical_json_marking(std::string& out, const Json& object, std::string_view key);

// JSON.stringify(value): compact, members in insertion order (array-index keys first).
std::string compact_json(const Json& value);

// JSON.stringify(value, null, 2): the persisted layout, without the trailing newline.
std::string pretty_json(const Json& value);
// The same text as it appears nested `level` levels deep in a larger pretty document.
std::string pretty_json(const Json& value, int level);

// pretty_json(value, 1) from the persisted text (pretty_json(value) and a newline) fed in
// pieces: every line but the first gains two spaces and the trailing newline goes (strings hold
// no raw newline). For printing a file inside a larger document without holding it.
class PrettyNesting {
 public:
  std::string feed(std::string_view piece);

 private:
  bool newline_pending_ = false;  // held back: the text's last newline is not written
};

}  // namespace strata::model
