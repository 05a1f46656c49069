#include "strata/store/verified_ledger.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "strata/error.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/store/ledger_append.hpp"

namespace strata::store {
namespace {

using model::Json;

// v1 records had no per-run part; they are not read (the next run reads the ledger once).
constexpr const char* kRecordFormat = "strata-verified-ledger-v2";
constexpr std::string_view kRecordHash = "recordHash";  // SHA-256 of the canonical record without it

std::string record_hash(const Json& record) { return model::sha256_hex(model::canonical_json(record, kRecordHash)); }

// The file's identity as text (64-bit values do not fit a JSON number exactly). The change
// time is in it because no user-level call can set it back (touch -r restores mtime only).
std::optional<std::string> identity_of(const std::string& ledger_path) {
  struct stat info {};
  if (::stat(ledger_path.c_str(), &info) != 0) return std::nullopt;
  return std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino) + ":" + std::to_string(info.st_size) + ":" +
         std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec) + ":" +
         std::to_string(info.st_ctim.tv_sec) + "." + std::to_string(info.st_ctim.tv_nsec);
}

bool ends_with_seal(const std::string& ledger_path, const std::string& content_hash) {
  FileDescriptor fd(::open(ledger_path.c_str(), O_RDONLY | O_CLOEXEC));
  return fd.get() >= 0 && closing_offset(fd.get(), content_hash).has_value();
}

// Lower-case hex, a whole number of digests, strictly increasing (so binary search holds).
bool well_formed_digests(const std::string& digests) {
  constexpr std::size_t width = RecordedRun::kKeyDigestLength;
  if (digests.size() % width != 0) return false;
  if (!std::all_of(digests.begin(), digests.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
    return false;
  for (std::size_t at = width; at < digests.size(); at += width)
    if (digests.compare(at - width, width, digests, at, width) >= 0) return false;
  return true;
}

RecordedRun recorded_run_from(const Json& member) {
  RecordedRun run;
  run.plan_hash = member.at("planHash").get<std::string>();
  run.key_digests = member.at("executionKeys").get<std::string>();
  run.reported_tokens = member.at("reportedTokens").get<double>();
  run.reported_cost_usd = member.at("reportedCostUsd").get<double>();
  if (!well_formed_digests(run.key_digests)) throw std::runtime_error("malformed execution keys");
  return run;
}

}  // namespace

bool RecordedRun::has_execution_key(std::string_view execution_key) const {
  if (execution_key.size() < kKeyDigestLength) return false;
  const std::string_view digest = execution_key.substr(0, kKeyDigestLength);
  std::size_t low = 0, high = size();
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    const int order = std::string_view(key_digests).substr(middle * kKeyDigestLength, kKeyDigestLength).compare(digest);
    if (order == 0) return true;
    if (order < 0) low = middle + 1;
    else high = middle;
  }
  return false;
}

std::string key_digests_of(std::vector<std::string> execution_keys) {
  for (auto& key : execution_keys) key.resize(std::min(key.size(), RecordedRun::kKeyDigestLength));
  std::sort(execution_keys.begin(), execution_keys.end());
  execution_keys.erase(std::unique(execution_keys.begin(), execution_keys.end()), execution_keys.end());
  std::string digests;
  digests.reserve(execution_keys.size() * RecordedRun::kKeyDigestLength);
  for (const auto& key : execution_keys) digests += key;
  return digests;
}

std::string verified_record_path_for(const std::string& ledger_path) { return ledger_path + ".verified"; }

std::optional<VerifiedLedger> read_verified_ledger(const std::string& ledger_path) {
  try {
    const auto identity = identity_of(ledger_path);
    if (!identity || ::access(verified_record_path_for(ledger_path).c_str(), F_OK) != 0) return std::nullopt;
    const Json record = read_json_file(verified_record_path_for(ledger_path));
    if (record.value("format", "") != kRecordFormat || record.value("file", "") != *identity) return std::nullopt;
    if (record.value(std::string(kRecordHash), "") != record_hash(record)) return std::nullopt;  // edited or damaged
    VerifiedLedger verified;
    verified.content_hash = record.at("contentHash").get<std::string>();
    verified.ledger_version = record.at("ledgerVersion").get<std::string>();
    verified.observations = static_cast<std::size_t>(record.at("observations").get<double>());
    for (const auto& [run_id, member] : record.at("runs").items()) verified.runs.emplace(run_id, recorded_run_from(member));
    verified.hash_state = record.at("hashState").get<std::string>();
    if (!ends_with_seal(ledger_path, verified.content_hash)) return std::nullopt;
    return verified;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool write_verified_ledger(const std::string& ledger_path, const VerifiedLedger& verified) {
  const auto identity = identity_of(ledger_path);
  if (!identity) return false;
  Json runs = Json::object();
  for (const auto& [run_id, run] : verified.runs)
    runs[run_id] = {{"planHash", run.plan_hash},
                    {"executionKeys", run.key_digests},
                    {"reportedTokens", run.reported_tokens},
                    {"reportedCostUsd", run.reported_cost_usd}};
  Json record = {{"format", kRecordFormat},
                 {"file", *identity},
                 {"contentHash", verified.content_hash},
                 {"ledgerVersion", verified.ledger_version},
                 {"observations", static_cast<double>(verified.observations)},
                 {"hashState", verified.hash_state},
                 {"runs", std::move(runs)}};
  record[std::string(kRecordHash)] = record_hash(record);
  try {
    write_file_atomically(verified_record_path_for(ledger_path), model::pretty_json(record) + "\n");
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace strata::store
