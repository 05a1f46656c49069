// <ledger>.verified (store/verified_ledger): the per-run execution keys a resume answers from,
// and the checks that keep an edited, damaged or foreign record from being trusted.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/ledger_journal.hpp"
#include "strata/store/verified_ledger.hpp"

using strata::model::Json;
using strata::store::RecordedRun;

namespace {

std::string key(int n) { return strata::model::sha256_hex("execution " + std::to_string(n)); }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

struct LedgerDir {
  LedgerDir() {
    char name[] = "/tmp/strata-verified-test.XXXXXX";
    REQUIRE(::mkdtemp(name) != nullptr);
    dir = name;
    ledger = dir + "/ledger.json";
    hash = strata::store::write_ledger(ledger, "v1", observations());
  }
  // Two observation-like objects: the record is made for a ledger that has observations (an
  // empty one has no closing to check and is always read).
  static std::vector<Json> observations() {
    std::vector<Json> out;
    for (int i = 0; i < 2; ++i)
      out.push_back({{"runId", "run-a"}, {"n", static_cast<double>(i)}, {"contentHash", key(100 + i)}});
    return out;
  }
  ~LedgerDir() { std::filesystem::remove_all(dir); }
  std::string dir, ledger, hash;
};

strata::store::VerifiedLedger record_of(const LedgerDir& files) {
  strata::store::VerifiedLedger verified;
  verified.content_hash = files.hash;
  verified.ledger_version = "v1";
  verified.hash_state = "state";
  RecordedRun run;
  run.plan_hash = "plan-a";
  run.key_digests = strata::store::key_digests_of({key(3), key(1), key(2), key(1)});
  run.reported_tokens = 1234;
  run.reported_cost_usd = 0.1 + 0.2;  // not a short decimal: must come back bit for bit
  verified.runs.emplace("run-a", run);
  verified.runs.emplace("run-b", RecordedRun{"plan-b", strata::store::key_digests_of({}), 0, 0});
  return verified;
}

}  // namespace

TEST_CASE("key digests: sorted, de-duplicated, 32 hex characters each, found by binary search", "[verified]") {
  std::vector<std::string> keys;
  for (int i = 0; i < 200; ++i) keys.push_back(key(i));
  RecordedRun run;
  run.key_digests = strata::store::key_digests_of(keys);
  CHECK(run.size() == 200);
  CHECK(run.key_digests.size() == 200 * RecordedRun::kKeyDigestLength);
  for (int i = 0; i < 200; ++i) CHECK(run.has_execution_key(key(i)));
  for (int i = 200; i < 400; ++i) CHECK_FALSE(run.has_execution_key(key(i)));
  CHECK_FALSE(run.has_execution_key(""));
  CHECK_FALSE(run.has_execution_key(key(1).substr(0, 31)));
  CHECK_FALSE(RecordedRun{}.has_execution_key(key(1)));
  keys.push_back(key(7));
  CHECK(strata::store::key_digests_of(keys) == run.key_digests);
}

TEST_CASE("the record is read back as written while the ledger is unchanged", "[verified]") {
  LedgerDir files;
  REQUIRE(strata::store::write_verified_ledger(files.ledger, record_of(files)));
  const auto read = strata::store::read_verified_ledger(files.ledger);
  REQUIRE(read);
  CHECK(read->content_hash == files.hash);
  CHECK(read->runs.size() == 2);
  const RecordedRun& run = read->runs.at("run-a");
  CHECK(run.plan_hash == "plan-a");
  CHECK(run.size() == 3);
  CHECK(run.has_execution_key(key(2)));
  CHECK_FALSE(run.has_execution_key(key(4)));
  CHECK(run.reported_tokens == 1234);
  CHECK(run.reported_cost_usd == 0.1 + 0.2);
  CHECK(read->runs.at("run-b").size() == 0);
}

TEST_CASE("an edited, damaged or foreign record is not used", "[verified]") {
  LedgerDir files;
  REQUIRE(strata::store::write_verified_ledger(files.ledger, record_of(files)));
  const std::string path = strata::store::verified_record_path_for(files.ledger);
  const std::string good = read_text(path);
  const Json record = Json::parse(good);

  SECTION("a run added (it would skip executions the ledger does not hold)") {
    Json edited = record;
    edited["runs"]["run-c"] = edited["runs"]["run-a"];
    write_text(path, strata::model::pretty_json(edited) + "\n");
  }
  SECTION("one digest changed") {
    Json edited = record;
    std::string digests = edited["runs"]["run-a"]["executionKeys"];
    digests[0] = digests[0] == 'a' ? 'b' : 'a';
    edited["runs"]["run-a"]["executionKeys"] = digests;
    write_text(path, strata::model::pretty_json(edited) + "\n");
  }
  SECTION("a reported total changed") {
    Json edited = record;
    edited["runs"]["run-a"]["reportedTokens"] = 1.0;
    write_text(path, strata::model::pretty_json(edited) + "\n");
  }
  SECTION("digests out of order, even with a matching record hash") {
    Json edited = record;
    std::string digests = edited["runs"]["run-a"]["executionKeys"];
    edited["runs"]["run-a"]["executionKeys"] = digests.substr(32) + digests.substr(0, 32);
    edited["recordHash"] = strata::model::sha256_hex(strata::model::canonical_json(edited, "recordHash"));
    write_text(path, strata::model::pretty_json(edited) + "\n");
  }
  SECTION("cut short") { write_text(path, good.substr(0, good.size() / 2)); }
  SECTION("the ledger rewritten (another file behind the same name)") {
    strata::store::write_ledger(files.ledger, "v1", LedgerDir::observations());
  }
  SECTION("the previous format") {
    Json edited = record;
    edited["format"] = "strata-verified-ledger-v1";
    edited["recordHash"] = strata::model::sha256_hex(strata::model::canonical_json(edited, "recordHash"));
    write_text(path, strata::model::pretty_json(edited) + "\n");
  }
  CHECK_FALSE(strata::store::read_verified_ledger(files.ledger));
}
