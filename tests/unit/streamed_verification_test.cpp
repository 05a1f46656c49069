// `strata verify` of a ledger an observation at a time (store::verify_ledger_streamed) gives the
// report of the whole-document verification (model::verify_document) or none at all, and the
// command then verifies the document whole: either way, what the command says is unchanged.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/ledger_hasher.hpp"
#include "strata/model/study/verification.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/streamed_verification.hpp"

using strata::model::ArtifactKind;
using strata::model::Json;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("strata-streamed-verify-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

std::vector<Json> sealed_observations(std::size_t count) {
  std::vector<Json> out;
  for (std::size_t i = 0; i < count; ++i) {
    Json o = strata::test::observation_payload();
    o["runId"] = "run-" + std::to_string(i % 3);
    o["contextBytes"] = static_cast<double>(i);
    o["evidenceIds"] = Json::array({"src/caf\u00e9-" + std::to_string(i) + ".ts"});
    out.push_back(strata::model::create_artifact(ArtifactKind::observation, o));
  }
  return out;
}

const std::vector<std::string> kUsualOrder{"type", "schemaVersion", "ledgerVersion", "observations", "contentHash", "contentHashAlgo"};
const std::vector<std::string> kVersionLast{"type", "schemaVersion", "observations", "contentHash", "contentHashAlgo", "ledgerVersion"};

// The ledger's text with its members in `order`; sealed over the observations as given (so an
// observation edited before the call keeps a valid ledger seal over a wrong observation hash).
std::string ledger_text(const std::vector<Json>& observations, const std::vector<std::string>& order, bool compact = false) {
  Json ledger = {{"type", "controlled-study-observation-ledger"},
                 {"schemaVersion", 1.0},
                 {"ledgerVersion", "v1"},
                 {"observations", observations},
                 {"contentHashAlgo", std::string(strata::model::kContentHashAlgo)}};
  ledger["contentHash"] = strata::model::LedgerHasher(ledger).hash();
  Json ordered = Json::object();
  for (const auto& key : order) ordered[key] = ledger[key];
  return compact ? strata::model::compact_json(ordered) : strata::model::pretty_json(ordered) + "\n";
}

// What `strata verify` reported for the file before it streamed: the report, or the error.
std::string whole_report(const std::string& path) {
  try {
    const auto v = strata::model::verify_document(strata::store::read_json_file(path));
    std::string out = v.type + (v.known_kind ? " known " : " unknown ") + v.content_hash;
    for (const auto& m : v.mismatches) out += "\n" + m.path + " " + m.stored + " " + m.computed;
    return out;
  } catch (const strata::Error& e) {
    return "error: " + e.describe();
  }
}

std::optional<std::string> streamed_report(const std::string& path) {
  const auto v = strata::store::verify_ledger_streamed(path);
  if (!v) return std::nullopt;
  std::string out = v->type + (v->known_kind ? " known " : " unknown ") + v->content_hash;
  for (const auto& m : v->mismatches) out += "\n" + m.path + " " + m.stored + " " + m.computed;
  return out;
}

}  // namespace

TEST_CASE("a ledger verified an observation at a time gives the whole verification's report", "[verify]") {
  const TempDir dir;
  auto observations = sealed_observations(800);  // about 1.2 MB: more than one 1 MiB read
  std::vector<std::pair<std::string, std::string>> cases;
  for (std::size_t count : {0, 1, 800}) {
    const std::vector<Json> some(observations.begin(), observations.begin() + static_cast<std::ptrdiff_t>(count));
    cases.emplace_back(std::to_string(count) + " observations", ledger_text(some, kUsualOrder));
    cases.emplace_back(std::to_string(count) + " observations, compact", ledger_text(some, kUsualOrder, true));
  }
  // Tampered observations under a valid ledger seal: a stored hash replaced, a member edited.
  auto tampered = observations;
  tampered[0]["contentHash"] = std::string(64, 'a');
  tampered[799]["contextBytes"] = 12345.0;
  tampered[400]["evidenceIds"][0] = "src/other.ts";
  cases.emplace_back("three tampered observations", ledger_text(tampered, kUsualOrder));
  // The same edits after sealing: the ledger's own hash fails too, and comes first.
  std::string edited = ledger_text(observations, kUsualOrder);
  edited.replace(edited.find("\"contextBytes\": 7,"), 18, "\"contextBytes\": 8,");
  cases.emplace_back("an observation edited after sealing", edited);
  std::string wrong_seal = ledger_text(observations, kUsualOrder);
  const std::size_t seal = wrong_seal.rfind("\"contentHash\": \"") + 16;
  wrong_seal.replace(seal, 4, wrong_seal.substr(seal, 4) == "0000" ? "1111" : "0000");
  cases.emplace_back("a wrong ledger seal", wrong_seal);
  for (const auto& [what, text] : cases) {
    INFO(what);
    const std::string path = dir.file("ledger.json", text);
    const auto streamed = streamed_report(path);
    REQUIRE(streamed.has_value());
    CHECK(*streamed == whole_report(path));
  }
  // The tampered case names exactly the three observations, in order, under a valid seal.
  const std::string path = dir.file("ledger.json", ledger_text(tampered, kUsualOrder));
  const auto report = strata::store::verify_ledger_streamed(path);
  REQUIRE(report.has_value());
  REQUIRE(report->mismatches.size() == 3);
  CHECK(report->mismatches[0].path == "$.observations[0].contentHash");
  CHECK(report->mismatches[0].stored == std::string(64, 'a'));
  CHECK(report->mismatches[0].computed == observations[0]["contentHash"]);
  CHECK(report->mismatches[1].path == "$.observations[400].contentHash");
  CHECK(report->mismatches[2].path == "$.observations[799].contentHash");
}

TEST_CASE("a ledger the streamed verification cannot decide is left to the whole one, unchanged", "[verify]") {
  const TempDir dir;
  const auto observations = sealed_observations(3);
  auto tampered = observations;
  tampered[1]["contentHash"] = std::string(64, 'b');
  const std::string good = ledger_text(observations, kUsualOrder);
  std::string bad_shape = good;
  bad_shape.replace(bad_shape.find("\"contextBytes\": 1"), 17, "\"contextBytes\": -1");
  const std::vector<Json> repeated{observations[0], observations[1], observations[0]};
  struct Case {
    const char* what;
    std::string text;
    const char* whole_says;  // part of what the whole verification says
  };
  const std::vector<Case> cases{
      {"the version after the observations", ledger_text(observations, kVersionLast), "controlled-study-observation-ledger known "},
      {"the same, tampered", ledger_text(tampered, kVersionLast), "controlled-study-observation-ledger known "},
      {"a cut-short file", good.substr(0, good.size() / 2), "error: "},
      {"an invalid observation", bad_shape, "error: "},
      {"a repeated observation", ledger_text(repeated, kUsualOrder), "Duplicate observation id."},
      {"another artifact", strata::store::read_artifact_text(strata::test::fixture_path("run-plan-v1.json")),
       "controlled-study-run-plan known "},
      {"not JSON", "observations", "error: "},
      {"empty", "", "error: "},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const std::string path = dir.file("ledger.json", c.text);
    CHECK_FALSE(streamed_report(path).has_value());
    CHECK(whole_report(path).find(c.whole_says) != std::string::npos);
  }
  // The tampered ledger with its version last is reported whole exactly as streamed in the usual order.
  const std::string usual = dir.file("usual.json", ledger_text(tampered, kUsualOrder));
  const std::string late = dir.file("late.json", ledger_text(tampered, kVersionLast));
  CHECK(streamed_report(usual) == whole_report(late));
  CHECK_FALSE(strata::store::verify_ledger_streamed((dir.path / "missing.json").string()).has_value());
  CHECK_FALSE(strata::store::verify_ledger_streamed(dir.path.string()).has_value());
}
