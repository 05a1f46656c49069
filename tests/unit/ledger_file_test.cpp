// A sealed ledger written and hashed an observation at a time (store::write_sealed_ledger,
// model::seal_checked_ledger): the same bytes and the same contentHash as the whole-document
// pretty_json and content_hash, without holding either text whole.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/ledger_journal.hpp"

using strata::model::Json;

namespace {

// Observation-like objects: nested members, numbers, escapes and non-ASCII text, each with its
// own contentHash (all the ledger check looks at).
std::vector<Json> observations(std::size_t count) {
  std::vector<Json> out;
  for (std::size_t i = 0; i < count; ++i) {
    Json o = {{"runId", "run-" + std::to_string(i % 3)},
              {"task", {{"taskId", "task-" + std::to_string(i)}, {"replicate", static_cast<double>(i % 2)}}},
              {"notes", "line\none \"quoted\" caf\u00e9 \u2713 " + std::string(i % 700, 'x')},
              {"evidenceIds", Json::array({"src/a.ts", "docs/b.md"})},
              {"empty", Json::object()},
              {"none", Json::array()},
              {"ratio", 0.1 * static_cast<double>(i)}};
    o["contentHash"] = strata::model::sha256_hex(std::to_string(i));
    out.push_back(o);
  }
  return out;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a sealed ledger is written an observation at a time, byte for byte as pretty_json", "[ledger-file]") {
  const auto dir = std::filesystem::temp_directory_path() / ("strata-ledger-file-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // 2,500 observations of up to ~1 KB pass the 1 MiB piece size more than once.
  for (std::size_t count : {0, 1, 3, 2500}) {
    const Json sealed = strata::model::seal_checked_ledger("v1", observations(count));
    const auto path = dir / ("ledger-" + std::to_string(count) + ".json");
    strata::store::write_sealed_ledger(path.string(), sealed);
    INFO(count << " observations");
    CHECK(read_file(path) == strata::model::pretty_json(sealed) + "\n");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a ledger sealed an observation at a time has the canonical content hash", "[ledger-file]") {
  for (std::size_t count : {0, 1, 40}) {
    const Json sealed = strata::model::seal_checked_ledger("v7", observations(count));
    INFO(count << " observations");
    CHECK(sealed["contentHash"] == strata::model::content_hash(sealed));
    CHECK(sealed["contentHashAlgo"] == "sha256-normalized-v1");
  }
}
