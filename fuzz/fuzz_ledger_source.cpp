// An input ledger as `strata adjudicate` reads it: store::LedgerSource::open_streamed, which
// checks the file an observation at a time and gives up (nullptr) on anything unusual, the
// caller then reading the document whole (parse_json + parse_artifact). The input is written to
// a scratch file first: the function reads a path.
//
// Invariants (a differential check against the whole-document read):
//  - open_streamed throws nothing;
//  - it never accepts a ledger the whole read rejects;
//  - what it accepts is what the whole read gives: the same version, the same number of
//    observations, the same run ids, and each observation(i) equal to the parsed one.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "fuzz_support.hpp"
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/ledger_source.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_ledger_source {

using namespace strata;
using model::Json;

namespace {

std::optional<Json> whole_read(std::string_view text) {
  try {
    return model::parse_artifact(model::ArtifactKind::ledger, model::parse_json(text));
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

int test_one_input(const std::uint8_t* data, std::size_t size) {
  static const std::string path = fuzz::scratch_directory() + "/input-ledger.json";
  const std::string_view text = fuzz::as_text(data, size);
  fuzz::write_file(path, text);
  std::unique_ptr<store::LedgerSource> streamed;
  try {
    streamed = store::LedgerSource::open_streamed(path);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("open_streamed threw: ") + e.what());
  }
  if (!streamed) return 0;  // the whole read decides, as in strata adjudicate
  const std::optional<Json> whole = whole_read(text);
  FUZZ_CHECK(whole.has_value(), "the streamed read accepted a ledger the whole read rejects: " + fuzz::excerpt(text));
  const Json& observations = (*whole)["observations"];
  FUZZ_CHECK(streamed->ledger_version() == (*whole)["ledgerVersion"].get<std::string>(), "another ledger version");
  FUZZ_CHECK(streamed->size() == observations.size(), "another number of observations");
  for (std::size_t i = 0; i < observations.size(); ++i) {
    FUZZ_CHECK(streamed->run_ids()[i] == observations[i]["runId"].get<std::string>(), "another run id at " + std::to_string(i));
    Json read;
    try {
      read = streamed->observation(i);
    } catch (const Error& e) {
      FUZZ_CHECK(false, "observation " + std::to_string(i) + " of an unchanged file: " + e.describe());
    }
    FUZZ_CHECK(read == observations[i], "observation " + std::to_string(i) + " differs: " + fuzz::excerpt(model::compact_json(read)));
  }
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("ledger_source", &test_one_input);

}  // namespace fuzz_ledger_source
