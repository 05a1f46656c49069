#include "strata/store/ledger_source.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <string_view>

#include "strata/error.hpp"
#include "strata/model/artifact.hpp"
#include "strata/model/json_document.hpp"
#include "strata/model/ledger_hasher.hpp"
#include "strata/model/ledger_scanner.hpp"
#include "strata/model/shape.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/model/json_access.hpp"

namespace strata::store {
namespace {

using model::Json;


using model::str;

std::size_t fingerprint(std::string_view bytes) { return std::hash<std::string_view>{}(bytes); }

// An observation's text parsed and conformed as the ledger's parse would: two levels
// shallower than in the document (the ledger object and its array), so the same depth limit.
Json parsed_observation(std::string_view text) {
  return model::conform(model::parse_json(text, model::kMaxJsonDepth - 2),
                        *model::artifact_spec(model::ArtifactKind::observation).sealed);
}

// The ledger version from the text before the observations array ("{…, "observations": ["):
// the hash of the observations needs it first. nullopt when it comes after the array.
std::optional<std::string> version_before_array(const std::string& header_so_far) {
  const Json prefix = model::parse_json(header_so_far + "]}");
  const auto found = prefix.find("ledgerVersion");
  if (found == prefix.end() || !found->is_string()) return std::nullopt;
  return found->get<std::string>();
}

// The other members are constants of the ledger's shape, checked with the header at the end.
std::unique_ptr<model::LedgerHasher> hasher_for(const std::string& ledger_version) {
  return std::make_unique<model::LedgerHasher>(model::ledger_without_observations(ledger_version));
}

}  // namespace

std::unique_ptr<LedgerSource> LedgerSource::open_streamed(const std::string& path) {
  std::unique_ptr<LedgerSource> source(new LedgerSource());
  source->path_ = path;
  source->file_.emplace(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  const int fd = source->file_->get();
  struct stat info {};
  if (fd < 0 || ::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return nullptr;
  // The lock read_artifact_text takes: an in-place append does not change the bytes under the check.
  if (::flock(fd, LOCK_SH) != 0) return nullptr;
  bool verified = false;
  try {
    verified = source->read_and_verify();
  } catch (const std::exception&) {
  }
  ::flock(fd, LOCK_UN);
  return verified ? std::move(source) : nullptr;
}

// One pass over the file: each observation is parsed, conformed, hashed into the ledger's
// hash and dropped; the rest of the document (the header) is checked at the end.
bool LedgerSource::read_and_verify() {
  std::string window;  // the file's bytes from window_start on
  std::uint64_t window_start = 0;
  std::unique_ptr<model::LedgerHasher> hasher;
  std::vector<std::string> hashes;
  bool unusual = false;
  model::LedgerScanner scanner([&](model::LedgerScanner::Range range) {
    if (unusual) return;
    if (!hasher) {
      const auto version = version_before_array(scanner.header());
      if (!version) {
        unusual = true;
        return;
      }
      ledger_version_ = *version;
      hasher = hasher_for(ledger_version_);
    }
    const std::string_view text(window.data() + (range.begin - window_start), range.end - range.begin);
    const Json observation = parsed_observation(text);
    hasher->append(observation);
    hashes.push_back(str(observation["contentHash"]));
    run_ids_.push_back(str(observation["runId"]));
    spans_.push_back(Span{range.begin, text.size(), fingerprint(text)});
  });
  std::uint64_t total = 0;
  read_file_pieces(file_->get(), path_, [&](std::string_view piece) {
    total += piece.size();
    if (total > kMaxArtifactBytes) unusual = true;  // the whole read reports the limit
    if (unusual) return false;
    window.append(piece);
    scanner.feed(piece);
    if (unusual) return false;
    window.erase(0, scanner.needed_from() - window_start);
    window_start = scanner.needed_from();
    return true;
  });
  if (unusual || !scanner.finish() || spans_.size() > model::kMaxLedgerObservations) return false;
  std::sort(hashes.begin(), hashes.end());
  if (std::adjacent_find(hashes.begin(), hashes.end()) != hashes.end()) return false;
  return header_verifies(scanner.header(), std::move(hasher));
}

// The rest of the document, its array left empty, checked as the whole ledger's parse would
// check it, and the seal it holds compared with the observations' hash.
bool LedgerSource::header_verifies(const std::string& header_text, std::unique_ptr<model::LedgerHasher> hasher) {
  const Json header = model::conform(model::parse_json(header_text), *model::artifact_spec(model::ArtifactKind::ledger).sealed);
  if (!header["observations"].empty()) return false;  // a second "observations" member won
  if (hasher && str(header["ledgerVersion"]) != ledger_version_) return false;  // a second "ledgerVersion" won
  ledger_version_ = str(header["ledgerVersion"]);
  if (!hasher) hasher = hasher_for(ledger_version_);  // no observations
  content_hash_ = str(header["contentHash"]);
  return hasher->hash() == content_hash_;
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
  return parsed_observation(text);
}

}  // namespace strata::store
