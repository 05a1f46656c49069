#pragma once
// One pass over a ledger file an observation at a time, for every whole read that does not
// need the document's parse tree (`strata verify`, and store::LedgerSource for adjudicate,
// export, metrics, report and merge): the file is read in pieces, split by model::LedgerScanner,
// and each observation is parsed, conformed and written as canonical text once, that text
// extending the ledger's hash; the rest of the document (the "header") is checked at the end.
// Memory stays at one observation and one read piece, whatever the ledger's size.
//
// The pass checks what parsing the whole document would (model::parse_json with its limits, the
// sealed ledger shape, unique observation hashes) except the seal itself, which it computes and
// hands back. It gives up (nullopt) whenever it cannot decide with certainty: a syntax or shape
// error anywhere, a ledger version that follows the observations (their hash needs it first),
// two "observations" members, a repeated observation, a file over the size or count limit, not
// a regular file. The caller then reads the document whole, which reports the exact problem or
// accepts the unusual layout, so a streamed read never changes what a command says.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"
#include "strata/model/json/json_writer.hpp"

namespace strata::store {

// One observation as the pass hands it over; the views are valid during the call only.
struct StreamedObservation {
  std::size_t index = 0;
  std::uint64_t offset = 0;   // of its first byte in the file
  std::string_view text;      // its bytes in the file
  const model::Json& value;   // parsed and conformed to the sealed observation shape
  std::string_view canonical; // its canonical text (spec §2.1), its contentHash member included
  model::MemberRange hash_member;  // that member in `canonical` (its own hash leaves it out)
};

// What the pass learnt of the rest of the ledger.
struct StreamedLedger {
  std::string ledger_version;
  std::string stored_hash;    // the document's contentHash member
  std::string computed_hash;  // sha256-normalized-v1 of the document as read
  std::size_t observations = 0;
};

// Reads the ledger file open at `fd` from its first byte, under a shared lock (the one an in-place
// append waits for), handing each observation to `visit` in order. Never throws: an error of
// the file, of its text or of `visit` is a nullopt (see above).
std::optional<StreamedLedger> read_ledger_streamed(int fd, const std::string& path,
                                                   const std::function<void(const StreamedObservation&)>& visit);

// An observation's bytes from a ledger file, parsed and conformed as the whole ledger's parse
// would (the same depth limit, the sealed observation shape). Throws strata::Error.
model::Json parse_ledger_observation(std::string_view text);

}  // namespace strata::store
