// model/study/shard (--shard I/N and --shard auto) and app/study/ledger_merge (strata ledger merge), issue 17:
//  - the partition: for every selection length and N in 1..16 the shards are disjoint, their
//    union is the selection, and their sizes differ by at most one;
//  - the property: for random studies (one or two runs of random lengths) and N in 1..16, merging
//    the shards (given in shard order, some observations present twice) gives the same
//    observations in the same order as the single ledger;
//  - --shard auto from Slurm and Kubernetes environments, and every refusal;
//  - merge refusals: two plan hashes, a conflicting duplicate, a shard observation outside the base.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/app/study/ledger_merge.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/shard.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/ledger_source.hpp"

using strata::model::ArtifactKind;
using strata::model::Json;
using strata::model::Shard;
namespace fs = std::filesystem;

namespace {

Json study_observation(const std::string& run_id, std::size_t k, const std::string& plan_hash = std::string(64, 'a')) {
  Json o = strata::test::observation_payload();
  o["runId"] = run_id;
  o["planHash"] = plan_hash;
  o["task"]["taskId"] = "task-" + std::to_string(k);
  o["contextBytes"] = static_cast<double>(k);
  return strata::model::create_artifact(ArtifactKind::observation, o);
}

Json ledger_of(const std::vector<Json>& observations) {
  return strata::model::create_artifact(
      ArtifactKind::ledger, Json{{"type", "controlled-study-observation-ledger"}, {"schemaVersion", 1}, {"ledgerVersion", "v1"},
                                 {"observations", observations}});
}

struct MergeDir {
  fs::path path = fs::temp_directory_path() / ("strata-shard-merge-" + std::to_string(::getpid()));
  MergeDir() { fs::create_directories(path); }
  ~MergeDir() { fs::remove_all(path); }
};

// Merges `shards` (and `base`) into a file and reads the result back.
std::vector<Json> merge_of(const std::vector<Json>& shards, const Json* base = nullptr) {
  const MergeDir dir;
  std::vector<std::unique_ptr<strata::store::LedgerSource>> sources;
  strata::app::MergeRequest request;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    sources.push_back(std::make_unique<strata::store::LedgerSource>(shards[i]));
    request.shards.push_back({"shard-" + std::to_string(i) + ".json", sources.back().get()});
  }
  if (base) {
    sources.push_back(std::make_unique<strata::store::LedgerSource>(*base));
    request.base = strata::app::MergeInput{"base.json", sources.back().get()};
  }
  request.output_path = (dir.path / "merged.json").string();
  strata::app::merge_ledgers(request);
  REQUIRE(strata::store::LedgerSource::open_streamed(request.output_path) != nullptr);  // sealed, verifies
  const Json ledger = strata::store::read_json_file(request.output_path);
  return ledger["observations"].get<std::vector<Json>>();
}

std::string merge_refusal(const std::vector<Json>& shards, const Json* base = nullptr) {
  return strata::test::message_of([&] { merge_of(shards, base); });
}

strata::model::EnvironmentLookup shard_environment(std::map<std::string, std::string> variables) {
  return [variables](const char* name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
}

std::string auto_refusal(std::map<std::string, std::string> variables) {
  return strata::test::message_of([&] { strata::model::shard_from_environment(shard_environment(std::move(variables))); });
}

}  // namespace

TEST_CASE("shards are disjoint, cover the selection and are balanced", "[shard]") {
  for (std::size_t length = 0; length <= 40; ++length) {
    for (std::size_t count = 1; count <= 16; ++count) {
      std::vector<int> owners(length, 0);
      std::vector<std::size_t> sizes(count, 0);
      for (std::size_t index = 0; index < count; ++index) {
        const Shard shard{index, count};
        for (std::size_t k = 0; k < length; ++k)
          if (shard.holds(k)) {
            ++owners[k];
            ++sizes[index];
          }
      }
      for (int owned : owners) REQUIRE(owned == 1);
      REQUIRE(*std::max_element(sizes.begin(), sizes.end()) - *std::min_element(sizes.begin(), sizes.end()) <= 1);
    }
  }
}

TEST_CASE("merging the shards gives the single ledger, for random studies and N in 1..16", "[shard]") {
  std::mt19937 random(20261202);
  for (int trial = 0; trial < 24; ++trial) {
    const std::size_t count = 1 + trial % 16;
    const std::size_t first_run = std::uniform_int_distribution<std::size_t>(1, 30)(random);
    const std::size_t second_run = std::uniform_int_distribution<std::size_t>(0, 12)(random);
    std::vector<Json> single;
    for (std::size_t k = 0; k < first_run; ++k) single.push_back(study_observation("run-a", k));
    for (std::size_t k = 0; k < second_run; ++k) single.push_back(study_observation("run-b", k, std::string(64, 'b')));
    std::vector<std::vector<Json>> shards(count);
    for (const std::string run : {"run-a", "run-b"}) {
      std::size_t k = 0;  // position in this run's selection
      for (const Json& o : single)
        if (o["runId"] == run) shards[k++ % count].push_back(o);
    }
    // A resumed or re-submitted shard can hold what another holds too: byte-identical, kept once.
    if (count > 1 && !shards[1].empty()) shards[0].push_back(shards[1].front());
    std::vector<Json> ledgers;
    for (const auto& shard : shards) ledgers.push_back(ledger_of(shard));
    INFO("trial " << trial << ": N " << count << ", runs of " << first_run << " and " << second_run);
    const std::vector<Json> result = merge_of(ledgers);
    REQUIRE(result.size() == single.size());
    for (std::size_t k = 0; k < single.size(); ++k) {
      INFO("position " << k);
      REQUIRE(strata::model::compact_json(result[k]) == strata::model::compact_json(single[k]));
    }
  }
}

TEST_CASE("adjudicated shards replace their observations in the base", "[shard]") {
  std::vector<Json> base;
  for (std::size_t k = 0; k < 7; ++k) base.push_back(study_observation("run-a", k));
  std::vector<Json> judged = base;
  std::vector<std::vector<Json>> shards(3);
  for (std::size_t k = 1; k < 6; ++k) {  // a batch: observations 1..5, round-robin over 3 shards
    Json payload = base[k];
    payload.erase("contentHash");
    payload.erase("contentHashAlgo");
    payload["adjudication"] = {{"status", "pending"}, {"reason", "judged by shard " + std::to_string((k - 1) % 3)}};
    judged[k] = strata::model::create_artifact(ArtifactKind::observation, payload);
    shards[(k - 1) % 3].push_back(judged[k]);
  }
  std::vector<Json> ledgers;
  for (const auto& shard : shards) ledgers.push_back(ledger_of(shard));
  const Json base_ledger = ledger_of(base);
  CHECK(merge_of(ledgers, &base_ledger) == judged);
  ledgers.push_back(ledger_of({study_observation("run-a", 99)}));
  CHECK(merge_refusal(ledgers, &base_ledger).find("execution task-99") != std::string::npos);
  CHECK(merge_refusal(ledgers, &base_ledger).find("is not in the base ledger base.json") != std::string::npos);
}

TEST_CASE("merge refuses two plan hashes for one run and conflicting copies", "[shard]") {
  const Json a = ledger_of({study_observation("run-a", 0), study_observation("run-a", 1)});
  const Json other_plan = ledger_of({study_observation("run-a", 2, std::string(64, 'c'))});
  CHECK(merge_refusal({a, other_plan}) ==
        "run run-a has plan hash " + std::string(64, 'a') + " in shard-0.json but " + std::string(64, 'c') +
            " in shard-1.json: these are not shards of one run");
  Json changed = strata::test::observation_payload();
  changed["runId"] = "run-a";
  changed["planHash"] = std::string(64, 'a');
  changed["task"]["taskId"] = "task-1";
  changed["contextBytes"] = 12345;
  const Json conflicting = ledger_of({strata::model::create_artifact(ArtifactKind::observation, changed)});
  const std::string message = merge_refusal({a, conflicting});
  CHECK(message.find("execution task-1 ") != std::string::npos);
  CHECK(message.find("differs between shard-0.json and shard-1.json") != std::string::npos);
}

TEST_CASE("a shard I/N is parsed strictly", "[shard]") {
  CHECK(strata::model::parse_shard("0/1").text() == "0/1");
  CHECK(strata::model::parse_shard("3/4").index == 3);
  CHECK(strata::test::message_of([] { strata::model::parse_shard("4/4"); }) ==
        "--shard: shard index 4 is not below the shard count 4 (--shard 4/4; shards are numbered from 0)");
  for (const char* bad : {"", "1", "1/", "/4", "-1/4", "1/4/2", "a/b", " 1/4", "1/4 ", "0x1/4"})
    CHECK(strata::test::message_of([&] { strata::model::parse_shard(bad); }) ==
          "--shard must be I/N (shard I of N, from 0, for example 0/4) or auto; got '" + std::string(bad) + "'");
  CHECK(strata::test::message_of([] { strata::model::parse_shard("0/0"); }).find("the shard count must be from 1 to 100000") !=
        std::string::npos);
}

TEST_CASE("shard auto reads a Slurm job array or a Kubernetes Indexed Job", "[shard]") {
  using strata::model::shard_from_environment;
  const auto shard = [](std::map<std::string, std::string> variables) { return shard_from_environment(shard_environment(std::move(variables))).text(); };
  CHECK(shard({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "3"}, {"SLURM_ARRAY_TASK_COUNT", "4"},
               {"SLURM_ARRAY_TASK_STEP", "1"}}) == "2/4");
  CHECK(shard({{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "4"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}) == "1/3");
  CHECK(shard({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "1"}, {"SLURM_ARRAY_TASK_COUNT", "1"},
               {"STRATA_SHARD_COUNT", "4"}}) == "1/4");  // a re-submitted single index
  CHECK(shard({{"JOB_COMPLETION_INDEX", "7"}, {"STRATA_SHARD_COUNT", "8"}}) == "7/8");

  CHECK(auto_refusal({}).find("--shard auto: no Slurm job array task (SLURM_ARRAY_TASK_ID) and no Kubernetes Indexed Job") == 0);
  CHECK(auto_refusal({{"JOB_COMPLETION_INDEX", "1"}}) ==
        "--shard auto: JOB_COMPLETION_INDEX is set but STRATA_SHARD_COUNT is not (set it to the Job's completions)");
  CHECK(auto_refusal({{"JOB_COMPLETION_INDEX", "8"}, {"STRATA_SHARD_COUNT", "8"}}) ==
        "--shard: shard index 8 is not below the shard count 8 (JOB_COMPLETION_INDEX and STRATA_SHARD_COUNT; shards are numbered from 0)");
  CHECK(auto_refusal({{"JOB_COMPLETION_INDEX", "x"}, {"STRATA_SHARD_COUNT", "8"}}) ==
        "--shard auto: JOB_COMPLETION_INDEX is not a non-negative integer: 'x'");
  CHECK(auto_refusal({{"JOB_COMPLETION_INDEX", "1"}, {"SLURM_ARRAY_TASK_ID", "1"}}) ==
        "--shard auto: both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set; pass --shard I/N");
  CHECK(auto_refusal({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_STEP", "2"}})
            .find("step other than 1") != std::string::npos);
  CHECK(auto_refusal({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "3"}, {"SLURM_ARRAY_TASK_COUNT", "5"}})
            .find("disagree") != std::string::npos);
  CHECK(auto_refusal({{"SLURM_ARRAY_TASK_ID", "2"}}) == "--shard auto: SLURM_ARRAY_TASK_MIN is not set");
  CHECK(auto_refusal({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "2"}, {"SLURM_ARRAY_TASK_MAX", "2"}, {"SLURM_ARRAY_TASK_COUNT", "1"}})
            .find("the Slurm array has one task (a re-submitted index?); set STRATA_SHARD_COUNT") != std::string::npos);
  CHECK(auto_refusal({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"}}).find("neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX") !=
        std::string::npos);
  CHECK(auto_refusal({{"SLURM_ARRAY_TASK_ID", "4"}, {"STRATA_SHARD_COUNT", "4"}}).find("shard index 4 is not below the shard count 4") !=
        std::string::npos);
}
