#include "strata/store/ledger_stream.hpp"

#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/study/ledger_hasher.hpp"
#include "strata/model/study/ledger_scanner.hpp"
#include "strata/model/json/shape.hpp"
#include "strata/store/artifact_file.hpp"

namespace strata::store {
namespace {

using model::Json;
using model::str;

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

class Pass {
 public:
  Pass(int fd, const std::string& path, const std::function<void(const StreamedObservation&)>& visit)
      : fd_(fd), path_(path), visit_(visit), scanner_([this](model::LedgerScanner::Range range) { observation(range); }) {}

  std::optional<StreamedLedger> run() {
    std::uint64_t total = 0;
    read_file_pieces(fd_, path_, [&](std::string_view piece) {
      total += piece.size();
      if (total > kMaxArtifactBytes) unusual_ = true;  // the whole read reports the limit
      if (unusual_) return false;
      window_.append(piece);
      scanner_.feed(piece);
      if (unusual_) return false;
      window_.erase(0, scanner_.needed_from() - window_start_);
      window_start_ = scanner_.needed_from();
      return true;
    });
    if (unusual_ || !scanner_.finish() || result_.observations > model::kMaxLedgerObservations) return std::nullopt;
    std::sort(hashes_.begin(), hashes_.end());
    if (std::adjacent_find(hashes_.begin(), hashes_.end()) != hashes_.end()) return std::nullopt;  // the whole read names it
    if (!header_checks()) return std::nullopt;
    return std::move(result_);
  }

 private:
  // Called by the scanner for each element of the array, while its bytes are in the window.
  void observation(model::LedgerScanner::Range range) {
    if (unusual_) return;
    if (!hasher_) {
      const auto version = version_before_array(scanner_.header());
      if (!version) {
        unusual_ = true;
        return;
      }
      result_.ledger_version = *version;
      hasher_ = hasher_for(result_.ledger_version);
    }
    const std::string_view text(window_.data() + (range.begin - window_start_), range.end - range.begin);
    const Json value = parse_ledger_observation(text);
    canonical_.clear();
    const model::MemberRange hash_member = model::append_canonical_json_marking(canonical_, value, "contentHash");
    hasher_->append_canonical(canonical_);
    hashes_.push_back(str(value["contentHash"]));
    visit_(StreamedObservation{result_.observations, range.begin, text, value, canonical_, hash_member});
    ++result_.observations;
  }

  // The rest of the document, its array left empty, checked as the whole ledger's parse would
  // check it; the seal it holds is handed back beside the one computed.
  bool header_checks() {
    const Json header = model::conform(model::parse_json(scanner_.header()), *model::artifact_spec(model::ArtifactKind::ledger).sealed);
    if (!header["observations"].empty()) return false;  // a second "observations" member won
    if (hasher_ && str(header["ledgerVersion"]) != result_.ledger_version) return false;  // a second "ledgerVersion" won
    result_.ledger_version = str(header["ledgerVersion"]);
    if (!hasher_) hasher_ = hasher_for(result_.ledger_version);  // no observations
    result_.stored_hash = str(header["contentHash"]);
    result_.computed_hash = hasher_->hash();
    return true;
  }

  int fd_;
  const std::string& path_;
  const std::function<void(const StreamedObservation&)>& visit_;
  model::LedgerScanner scanner_;
  std::string window_;  // the file's bytes from window_start_ on
  std::uint64_t window_start_ = 0;
  std::unique_ptr<model::LedgerHasher> hasher_;
  std::string canonical_;            // of the current observation, its buffer reused
  std::vector<std::string> hashes_;  // every observation's stored hash, for the duplicate check
  bool unusual_ = false;
  StreamedLedger result_;
};

}  // namespace

// Two levels shallower than in the document (the ledger object and its array): the same depth limit.
Json parse_ledger_observation(std::string_view text) {
  return model::conform(model::parse_json(text, model::kMaxJsonDepth - 2),
                        *model::artifact_spec(model::ArtifactKind::observation).sealed);
}

std::optional<StreamedLedger> read_ledger_streamed(int fd, const std::string& path,
                                                   const std::function<void(const StreamedObservation&)>& visit) {
  struct stat info {};
  if (fd < 0 || ::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || ::lseek(fd, 0, SEEK_SET) != 0) return std::nullopt;
  // The lock read_artifact_text takes: an in-place append does not change the bytes under the check.
  if (::flock(fd, LOCK_SH) != 0) return std::nullopt;
  std::optional<StreamedLedger> result;
  try {
    result = Pass(fd, path, visit).run();
  } catch (const std::exception&) {
    result.reset();
  }
  ::flock(fd, LOCK_UN);
  return result;
}

}  // namespace strata::store
