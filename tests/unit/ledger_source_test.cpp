// Ledgers read an observation at a time (model::LedgerScanner, store::LedgerSource) and written
// an observation at a time (store::write_ledger_streamed): the same observations, the same
// checks and the same bytes as the whole-document functions they stand in for.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/ledger_hasher.hpp"
#include "strata/model/study/ledger_scanner.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/ledger_source.hpp"
#include "strata/store/ledger_writer.hpp"

using strata::model::ArtifactKind;
using strata::model::Json;
using strata::model::LedgerScanner;
namespace fs = std::filesystem;

namespace {

// Sealed observations of three runs, each different (contextBytes, evidence).
std::vector<Json> sealed_observations(std::size_t count) {
  std::vector<Json> out;
  for (std::size_t i = 0; i < count; ++i) {
    Json o = strata::test::observation_payload();
    o["runId"] = "run-" + std::to_string(i % 3);
    o["contextBytes"] = static_cast<double>(i);
    o["evidenceIds"] = Json::array({"src/index-" + std::to_string(i) + ".ts"});
    out.push_back(strata::model::create_artifact(ArtifactKind::observation, o));
  }
  return out;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("strata-ledger-source-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The ranges the scanner reports for `text` fed in pieces of `piece` bytes, and whether it split.
struct Split {
  std::vector<std::string> observations;
  std::string header;
  bool ok = false;
};
Split split(const std::string& text, std::size_t piece) {
  Split out;
  LedgerScanner scanner([&](LedgerScanner::Range r) { out.observations.push_back(text.substr(r.begin, r.end - r.begin)); });
  for (std::size_t at = 0; at < text.size(); at += piece) scanner.feed(std::string_view(text).substr(at, piece));
  out.ok = scanner.finish();
  out.header = scanner.header();
  return out;
}

// A ledger document's text with these observations, members in the given order, correctly sealed.
std::string ledger_text(const std::vector<Json>& observations, const std::vector<std::string>& order) {
  Json ledger = {{"type", "controlled-study-observation-ledger"},
                 {"schemaVersion", 1.0},
                 {"ledgerVersion", "v1"},
                 {"observations", observations},
                 {"contentHashAlgo", std::string(strata::model::kContentHashAlgo)}};
  ledger["contentHash"] = strata::model::LedgerHasher(ledger).hash();
  Json ordered = Json::object();
  for (const auto& key : order) ordered[key] = ledger[key];
  return strata::model::pretty_json(ordered) + "\n";
}

const std::vector<std::string> kUsualOrder{"type", "schemaVersion", "ledgerVersion", "observations", "contentHash", "contentHashAlgo"};

}  // namespace

TEST_CASE("the scanner finds a ledger's observations, and the header around them", "[ledger-source]") {
  const std::string text =
      R"({"a": "x[\"]{", "observations": [ {"s":"}]\\\"", "t": {}} ,{"b":[1,{"c":"]"}]}
 ], "z": {"observations": [1]}})";
  for (std::size_t piece : {std::size_t{1}, std::size_t{7}, text.size()}) {
    INFO("pieces of " << piece);
    const Split s = split(text, piece);
    CHECK(s.ok);
    CHECK(s.observations == std::vector<std::string>{R"({"s":"}]\\\"", "t": {}})", R"({"b":[1,{"c":"]"}]})"});
    CHECK(s.header == R"({"a": "x[\"]{", "observations": [], "z": {"observations": [1]}})");
  }
  CHECK(split(R"({"observations":[]})", 1).ok);
  CHECK(split(R"({"observations":[]})", 1).header == R"({"observations":[]})");
}

TEST_CASE("the scanner gives up on a text it cannot split with certainty", "[ledger-source]") {
  for (const char* text : {
           R"({"type": "x"})",                                // no observations
           R"({"observations": [{}], "observations": [{}]})",  // two arrays: the document parse decides
           R"({"observations": [1]})",                         // an element that is not an object
           R"({"observations": [,{}]})",                       // misplaced commas
           R"({"observations": [{},]})",
           R"({"observations": [{},,{}]})",
           R"({"observations": [{} {}]})",
           R"([{"observations": [{}]}])",  // not at the top level
           R"({"x": {"observations": [{}]}})",
           R"({"observations": [{"a": "})",  // cut short
       }) {
    INFO(text);
    CHECK_FALSE(split(text, 1).ok);
  }
}

TEST_CASE("a ledger read an observation at a time is the ledger parse_artifact reads", "[ledger-source]") {
  const TempDir dir;
  // 800 observations of about 1.5 KB: more than one 1 MiB read.
  for (std::size_t count : {0, 1, 800}) {
    INFO(count << " observations");
    const std::string path = dir.file("ledger.json", ledger_text(sealed_observations(count), kUsualOrder));
    const Json whole = strata::model::parse_artifact(ArtifactKind::ledger, strata::store::read_json_file(path));
    const auto streamed = strata::store::LedgerSource::open_streamed(path);
    REQUIRE(streamed != nullptr);
    const strata::store::LedgerSource held(whole);
    for (const strata::store::LedgerSource* source : {static_cast<const strata::store::LedgerSource*>(streamed.get()), &held}) {
      REQUIRE(source->size() == count);
      CHECK(source->ledger_version() == "v1");
      for (std::size_t i = 0; i < count; ++i) {
        CHECK(source->run_ids()[i] == whole["observations"][i]["runId"]);
        CHECK(source->observation(i) == whole["observations"][i]);
      }
    }
  }
}

TEST_CASE("a ledger with anything unusual is left to the whole-document read", "[ledger-source]") {
  const TempDir dir;
  const auto observations = sealed_observations(3);
  const std::string good = ledger_text(observations, kUsualOrder);
  std::string bad_hash = good;
  bad_hash.replace(bad_hash.find("\"contentHash\": \"", bad_hash.rfind("\"observations\"")) + 16, 4, "0000");
  std::string bad_shape = good;
  bad_shape.replace(bad_shape.find("\"contextBytes\": 1"), 17, "\"contextBytes\": -1");
  const std::vector<Json> repeated{observations[0], observations[1], observations[0]};
  const std::vector<std::pair<std::string, std::string>> rejected{
      {"a wrong ledger hash", bad_hash},
      {"an invalid observation", bad_shape},
      {"a repeated observation", ledger_text(repeated, kUsualOrder)},
      {"a cut-short file", good.substr(0, good.size() / 2)},
      {"another artifact", read_file(strata::test::fixture_path("run-plan-v1.json"))},
  };
  for (const auto& [what, text] : rejected) {
    INFO(what);
    const std::string path = dir.file("bad.json", text);
    CHECK(strata::store::LedgerSource::open_streamed(path) == nullptr);
    // The whole-document read is then the one that reports the problem.
    CHECK(strata::test::error_of([&] {
            strata::model::parse_artifact(ArtifactKind::ledger, strata::store::read_json_file(path));
          }) != "no error");
  }
  CHECK(strata::store::LedgerSource::open_streamed((dir.path / "missing.json").string()) == nullptr);
  CHECK(strata::store::LedgerSource::open_streamed(dir.path.string()) == nullptr);
  // A valid ledger whose version follows its observations: left to the whole read, which takes it.
  const std::string late_version = dir.file(
      "late.json", ledger_text(observations, {"type", "schemaVersion", "observations", "ledgerVersion", "contentHash", "contentHashAlgo"}));
  CHECK(strata::store::LedgerSource::open_streamed(late_version) == nullptr);
  CHECK(strata::test::error_of([&] {
          strata::model::parse_artifact(ArtifactKind::ledger, strata::store::read_json_file(late_version));
        }) == "no error");
}

TEST_CASE("an observation whose bytes changed after the check is not read", "[ledger-source]") {
  const TempDir dir;
  const std::string path = dir.file("ledger.json", ledger_text(sealed_observations(3), kUsualOrder));
  const auto source = strata::store::LedgerSource::open_streamed(path);
  REQUIRE(source != nullptr);
  std::string text = read_file(path);
  const std::size_t third = text.find("\"contextBytes\": 2");
  REQUIRE(third != std::string::npos);
  text[third + 16] = '7';  // same length, other bytes
  std::fstream(path, std::ios::in | std::ios::out | std::ios::binary) << text;
  CHECK(source->observation(0)["contextBytes"] == 0.0);
  CHECK(strata::test::message_of([&] { source->observation(2); }) ==
        "the ledger changed while it was being read (observation 3 is no longer the one verified); run the command again");
}

TEST_CASE("a ledger written an observation at a time is the sealed ledger, byte for byte", "[ledger-source]") {
  const TempDir dir;
  for (std::size_t count : {0, 1, 800}) {
    INFO(count << " observations");
    const auto observations = sealed_observations(count);
    const Json sealed = strata::model::seal_checked_ledger("v1", observations);
    const std::string whole = (dir.path / "whole.json").string(), streamed = (dir.path / "streamed.json").string();
    strata::store::write_sealed_ledger(whole, sealed);
    const std::string hash = strata::store::write_ledger_streamed(streamed, "v1", count, [&](std::size_t i) { return observations[i]; });
    CHECK(hash == sealed["contentHash"]);
    CHECK(read_file(streamed) == read_file(whole));
  }
  const auto observations = sealed_observations(2);
  const std::string path = (dir.path / "repeated.json").string();
  CHECK(strata::test::message_of([&] {
          strata::store::write_ledger_streamed(path, "v1", 3, [&](std::size_t i) { return observations[i % 2]; });
        }) == "Duplicate observation id.");
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("a ledger file printed inside a larger document is pretty_json nested one level", "[ledger-source]") {
  const Json sealed = strata::model::seal_checked_ledger("v1", sealed_observations(800));
  const std::string file_text = strata::model::pretty_json(sealed) + "\n";
  for (std::size_t piece : {std::size_t{1}, std::size_t{4096}, file_text.size()}) {
    INFO("pieces of " << piece);
    strata::model::PrettyNesting nesting;
    std::string nested;
    for (std::size_t at = 0; at < file_text.size(); at += piece) nested += nesting.feed(std::string_view(file_text).substr(at, piece));
    CHECK(nested == strata::model::pretty_json(sealed, 1));
  }
}
