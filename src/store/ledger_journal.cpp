#include "strata/store/ledger_journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_set>

#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/file_descriptor.hpp"

namespace strata::store {
std::optional<model::Json> verified_journal_line(std::string_view line) {
  try {
    model::Json observation = model::conform(model::parse_json(line), *model::artifact_spec(model::ArtifactKind::observation).sealed);
    if (model::content_hash(observation) != observation["contentHash"].get<std::string>()) return std::nullopt;
    return observation;
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::string journal_path_for(const std::string& ledger_path) { return ledger_path + ".journal"; }
std::string lock_path_for(const std::string& ledger_path) { return ledger_path + ".lock"; }

JournalContents read_journal(const std::string& journal_path) {
  JournalContents contents;
  if (!std::filesystem::exists(journal_path)) return contents;
  const std::string text = read_artifact_text(journal_path);
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      contents.dropped = "an incomplete last line (" + std::to_string(text.size() - start) + " bytes)";
      break;
    }
    auto observation = verified_journal_line(std::string_view(text).substr(start, end - start));
    if (!observation) {
      contents.dropped = "an invalid line at byte " + std::to_string(start) + " and " +
                         std::to_string(text.size() - start) + " bytes after it";
      break;
    }
    contents.observations.push_back(std::move(*observation));
    start = end + 1;
    contents.valid_bytes = start;
  }
  return contents;
}

LedgerState read_ledger_state(const std::string& ledger_path) {
  LedgerState state;
  state.ledger_exists = std::filesystem::exists(ledger_path);
  if (state.ledger_exists) {
    model::Json document = read_json_file(ledger_path);
    try {
      state.ledger = model::parse_ledger(std::move(document), state.hasher);  // hash state kept for appends
    } catch (const Error& e) {
      throw Error(e.what(), e.location().empty() ? ledger_path : ledger_path + ": " + e.location());
    }
  } else {
    state.ledger = model::create_artifact(
        model::ArtifactKind::ledger,
        model::Json{{"type", "controlled-study-observation-ledger"}, {"schemaVersion", 1}, {"ledgerVersion", "v1"},
                    {"observations", model::Json::array()}});
  }
  state.journal = read_journal(journal_path_for(ledger_path));
  return state;
}

std::vector<model::Json> take_merged_observations(LedgerState& state) {
  std::vector<model::Json> all = std::move(state.ledger["observations"].get_ref<model::Json::array_t&>());
  std::unordered_set<std::string> seen;
  seen.reserve(all.size() + state.journal.observations.size());
  for (const auto& o : all) seen.insert(o["contentHash"].get<std::string>());
  for (auto& o : state.journal.observations)
    if (seen.insert(o["contentHash"].get<std::string>()).second) all.push_back(std::move(o));
  state.ledger["observations"] = model::Json::array();
  state.journal.observations.clear();
  return all;
}

std::string write_ledger(const std::string& ledger_path, const std::string& ledger_version,
                         std::vector<model::Json> observations) {
  const model::Json sealed = model::seal_checked_ledger(ledger_version, std::move(observations));
  write_sealed_ledger(ledger_path, sealed);
  return sealed["contentHash"].get<std::string>();
}

LedgerLock::LedgerLock(const std::string& ledger_path) {
  const std::string path = lock_path_for(ledger_path);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::absolute(path).parent_path(), ec);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot open the ledger lock: " + errno_text(), path);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw Error("Ledger " + ledger_path + " is in use by another strata run (lock " + path +
                "); wait for it to finish or stop it first.");
  }
}

LedgerLock::~LedgerLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace strata::store
