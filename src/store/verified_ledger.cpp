#include "strata/store/verified_ledger.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/error.hpp"
#include "strata/model/json.hpp"
#include "strata/model/json_document.hpp"
#include "strata/model/json_writer.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/store/ledger_append.hpp"

namespace strata::store {
namespace {

using model::Json;

constexpr const char* kFormat = "strata-verified-ledger-v1";

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

}  // namespace

std::string verified_record_path_for(const std::string& ledger_path) { return ledger_path + ".verified"; }

std::optional<VerifiedLedger> read_verified_ledger(const std::string& ledger_path) {
  try {
    const auto identity = identity_of(ledger_path);
    if (!identity || ::access(verified_record_path_for(ledger_path).c_str(), F_OK) != 0) return std::nullopt;
    const Json record = read_json_file(verified_record_path_for(ledger_path));
    if (record.value("format", "") != kFormat || record.value("file", "") != *identity) return std::nullopt;
    VerifiedLedger verified;
    verified.content_hash = record.at("contentHash").get<std::string>();
    verified.ledger_version = record.at("ledgerVersion").get<std::string>();
    verified.observations = static_cast<std::size_t>(record.at("observations").get<double>());
    for (const auto& id : record.at("runIds")) verified.run_ids.insert(id.get<std::string>());
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
  Json run_ids = Json::array();
  for (const auto& id : verified.run_ids) run_ids.push_back(id);
  const Json record = {{"format", kFormat},
                       {"file", *identity},
                       {"contentHash", verified.content_hash},
                       {"ledgerVersion", verified.ledger_version},
                       {"observations", static_cast<double>(verified.observations)},
                       {"runIds", std::move(run_ids)},
                       {"hashState", verified.hash_state}};
  try {
    write_file_atomically(verified_record_path_for(ledger_path), model::pretty_json(record) + "\n");
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace strata::store
