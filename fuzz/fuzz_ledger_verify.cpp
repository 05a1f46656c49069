// `strata verify` of a ledger file, streamed against whole: store::verify_ledger_streamed (an
// observation at a time, each written as canonical text once for both hashes) and
// model::verify_document(read_json_file) (the parse tree), on the same scratch file. The
// command takes the streamed report whenever there is one and falls back to the whole one
// otherwise, so the two must agree on every input the streamed pass decides.
//
// Invariants:
//  - verify_ledger_streamed throws nothing;
//  - when it gives a report, the whole verification succeeds (no error) with the same report:
//    type, known kind, content hash, and the same mismatches (path, stored, computed) in the
//    same order.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz_support.hpp"
#include "strata/error.hpp"
#include "strata/model/study/verification.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/streamed_verification.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_ledger_verify {

using namespace strata;

namespace {

std::string describe(const model::Verification& v) {
  std::string out = v.type + (v.known_kind ? " known " : " unknown ") + v.content_hash;
  for (const auto& m : v.mismatches) out += "\n  " + m.path + ": stored " + m.stored + ", computed " + m.computed;
  return out;
}

}  // namespace

int test_one_input(const std::uint8_t* data, std::size_t size) {
  static const std::string path = fuzz::scratch_directory() + "/verify-ledger.json";
  const std::string_view text = fuzz::as_text(data, size);
  fuzz::write_file(path, text);
  std::optional<model::Verification> streamed;
  try {
    streamed = store::verify_ledger_streamed(path);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("verify_ledger_streamed threw: ") + e.what());
  }
  if (!streamed) return 0;  // strata verify then verifies the document whole: nothing to compare
  model::Verification whole;
  try {
    whole = model::verify_document(store::read_json_file(path));
  } catch (const Error& e) {
    FUZZ_CHECK(false, "the streamed verify reported on a file the whole verify rejects (" + e.describe() + "): " + fuzz::excerpt(text));
  }
  FUZZ_CHECK(describe(*streamed) == describe(whole),
             "streamed:\n" + describe(*streamed) + "\nwhole:\n" + describe(whole) + "\ninput: " + fuzz::excerpt(text));
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("ledger_verify", &test_one_input);

}  // namespace fuzz_ledger_verify
