// The ledger journal (<ledger>.journal) as `strata run`, `strata ledger` and `strata verify`
// read it on resume: store::read_journal. It only reads a path, so each input is written
// to a scratch file first (tmpfs when available); no production code changed for this.
//
// Invariants:
//  - read_journal throws nothing for any content (a torn or corrupt journal must give a
//    valid prefix, not abort the resume; it catches only strata::Error inside);
//  - the valid prefix ends at a line boundary, holds exactly one observation per line,
//    and something is reported dropped exactly when bytes follow it;
//  - every kept observation conforms to the sealed observation shape and its hash verifies;
//  - the kept observations written back as journal lines (what JournalWriter appends)
//    read back completely and unchanged.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "fuzz_support.hpp"
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/json/shape.hpp"
#include "strata/store/ledger_journal.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_ledger_journal {

using namespace strata;
using model::Json;

namespace {

store::JournalContents read(const std::string& path) {
  try {
    return store::read_journal(path);
  } catch (const Error& e) {
    fuzz::fail(__FILE__, __LINE__, "read_journal", "read_journal threw for a readable journal: " + e.describe());
  }
}

}  // namespace

int test_one_input(const std::uint8_t* data, std::size_t size) {
  static const std::string path = fuzz::scratch_directory() + "/ledger.json.journal";
  const std::string_view text = fuzz::as_text(data, size);
  fuzz::write_file(path, text);
  const store::JournalContents contents = read(path);

  FUZZ_CHECK(contents.valid_bytes <= size, "valid prefix longer than the journal");
  FUZZ_CHECK(contents.valid_bytes == 0 || text[contents.valid_bytes - 1] == '\n', "valid prefix does not end at a line end");
  std::size_t lines = 0;
  for (std::size_t i = 0; i < contents.valid_bytes; ++i) lines += text[i] == '\n';
  FUZZ_CHECK(contents.observations.size() == lines, "valid prefix holds " + std::to_string(lines) + " lines but " +
                                                       std::to_string(contents.observations.size()) + " observations");
  FUZZ_CHECK(contents.dropped.has_value() == (contents.valid_bytes < size), "dropped tail reported wrongly");

  const auto& sealed = *model::artifact_spec(model::ArtifactKind::observation).sealed;
  std::string rewritten;
  for (const Json& observation : contents.observations) {
    FUZZ_CHECK(model::content_hash(observation) == observation["contentHash"].get<std::string>(),
               "kept a journal observation whose hash does not verify");
    try {
      model::conform(observation, sealed);
    } catch (const Error& e) {
      FUZZ_CHECK(false, "kept a journal observation outside the sealed shape: " + e.describe());
    }
    rewritten += model::compact_json(observation) + "\n";
  }
  if (contents.observations.empty()) return 0;

  fuzz::write_file(path, rewritten);
  const store::JournalContents again = read(path);
  FUZZ_CHECK(!again.dropped && again.valid_bytes == rewritten.size(), "rewritten journal lines do not read back completely");
  FUZZ_CHECK(again.observations.size() == contents.observations.size(), "rewritten journal holds another count");
  for (std::size_t i = 0; i < again.observations.size(); ++i)
    FUZZ_CHECK(model::compact_json(again.observations[i]) == model::compact_json(contents.observations[i]),
               "a journal observation changed through a write and read");
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("ledger_journal", &test_one_input);

}  // namespace fuzz_ledger_journal
