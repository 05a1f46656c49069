#include "strata/store/ledger_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <functional>
#include <string_view>

#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/ledger_stream.hpp"

namespace strata::store {
namespace {

using model::Json;
using model::str;

std::size_t fingerprint(std::string_view bytes) { return std::hash<std::string_view>{}(bytes); }

}  // namespace

std::unique_ptr<LedgerSource> LedgerSource::open_streamed(const std::string& path) {
  // Only a regular file: opening a named pipe here would take its writer from the whole read.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return nullptr;
  std::unique_ptr<LedgerSource> source(new LedgerSource());
  source->path_ = path;
  source->file_.emplace(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  return source->read_and_verify() ? std::move(source) : nullptr;
}

// One pass over the file (store/ledger_stream) keeping where each observation lies and its
// run id; the seal must hold, as for the whole read.
bool LedgerSource::read_and_verify() {
  const auto ledger = read_ledger_streamed(file_->get(), path_, [this](const StreamedObservation& observation) {
    run_ids_.push_back(str(observation.value["runId"]));
    spans_.push_back(Span{observation.offset, observation.text.size(), fingerprint(observation.text)});
  });
  if (!ledger || ledger->computed_hash != ledger->stored_hash) return false;
  ledger_version_ = ledger->ledger_version;
  content_hash_ = ledger->stored_hash;
  return true;
}

LedgerSource::LedgerSource(model::Json ledger)
    : tree_(std::move(ledger["observations"])),
      ledger_version_(str(ledger["ledgerVersion"])),
      content_hash_(str(ledger["contentHash"])) {
  run_ids_.reserve(tree_.size());
  for (const auto& observation : tree_) run_ids_.push_back(str(observation["runId"]));
}

Json LedgerSource::observation(std::size_t i) const {
  if (!file_) return tree_[i];
  const Span& span = spans_[i];
  const std::string text = read_file_range(file_->get(), span.begin, span.length, path_);
  if (fingerprint(text) != span.fingerprint)
    throw Error("the ledger changed while it was being read (observation " + std::to_string(i + 1) +
                    " is no longer the one verified); run the command again",
                path_);
  return parse_ledger_observation(text);
}

}  // namespace strata::store
