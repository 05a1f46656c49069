// The saved hash state that lets a run append to a ledger it verified earlier without
// reading it again (model::Sha256 / model::LedgerHasher saved_state and restore).
#include <catch2/catch.hpp>

#include <string>

#include "strata/model/study/content_hash.hpp"
#include "strata/model/study/ledger_hasher.hpp"

using strata::model::Json;
using strata::model::LedgerHasher;
using strata::model::Sha256;

namespace {

std::string bytes(std::size_t n) {
  std::string text;
  for (std::size_t i = 0; i < n; ++i) text += static_cast<char>('a' + i * 7 % 26);
  return text;
}

Json ledger_with(std::size_t observations) {
  Json ledger = {{"type", "controlled-study-observation-ledger"}, {"schemaVersion", 1.0}, {"ledgerVersion", "v1"},
                 {"contentHashAlgo", "sha256-normalized-v1"}};
  ledger["observations"] = Json::array();
  for (std::size_t i = 0; i < observations; ++i) {
    Json observation = {{"runId", "run-" + std::to_string(i % 3)}, {"n", static_cast<double>(i)}, {"text", bytes(i * 5)}};
    ledger["observations"].push_back(observation);
  }
  return ledger;
}

}  // namespace

TEST_CASE("a restored SHA-256 state continues to the same digest at every split point", "[hash]") {
  const std::string text = bytes(200);
  const std::string expected = strata::model::sha256_hex(text);
  for (std::size_t split = 0; split <= text.size(); ++split) {
    Sha256 first;
    first.update(text.substr(0, split));
    Sha256 second;
    second.update("unrelated bytes that restore() must replace");
    REQUIRE(second.restore(first.saved_state()));
    second.update(text.substr(split));
    INFO("split at " << split);
    CHECK(second.hex() == expected);
  }
}

TEST_CASE("SHA-256 restore refuses text it did not write and keeps its state", "[hash]") {
  Sha256 good;
  good.update(bytes(70));  // 6 bytes pending after one block
  const std::string saved = good.saved_state();
  Sha256 hash;
  hash.update("abc");
  const std::string before = hash.hex();
  for (const std::string& bad : {std::string(), std::string("sha256"), saved.substr(0, saved.size() - 2),
                                saved + "00", "md5" + saved.substr(6), saved.substr(0, saved.rfind(' ')) + " zz0000000000",
                                saved.substr(0, 7) + "1" + saved.substr(7)}) {
    INFO("saved state: " << bad);
    CHECK_FALSE(hash.restore(bad));
    CHECK(hash.hex() == before);
  }
}

TEST_CASE("a ledger hash continued from a saved state equals the hash of the whole ledger", "[hash]") {
  const Json whole = ledger_with(12);
  const std::string expected = strata::model::content_hash(whole);
  CHECK(LedgerHasher(whole).hash() == expected);
  for (std::size_t kept : {0u, 1u, 5u, 11u, 12u}) {
    Json head = whole;
    head["observations"] = Json::array();
    for (std::size_t i = 0; i < kept; ++i) head["observations"].push_back(whole["observations"][i]);
    const LedgerHasher loaded(head);
    auto resumed = LedgerHasher::restore(head, loaded.saved_state());
    REQUIRE(resumed != nullptr);
    for (std::size_t i = kept; i < 12; ++i) resumed->append(whole["observations"][i]);
    INFO("kept " << kept);
    CHECK(resumed->hash() == expected);
  }
  CHECK(LedgerHasher::restore(whole, "2 " + LedgerHasher(whole).saved_state().substr(2)) == nullptr);
  CHECK(LedgerHasher::restore(whole, "1 not a state") == nullptr);
}
