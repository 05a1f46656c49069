#include "strata/store/streamed_verification.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/store/ledger_stream.hpp"

namespace strata::store {
namespace {

// An observation's own contentHash: its canonical text without its contentHash member.
std::string own_hash(const StreamedObservation& observation) {
  const std::string_view text = observation.canonical;
  model::Sha256 sha;
  sha.update(text.substr(0, observation.hash_member.begin));
  sha.update(text.substr(observation.hash_member.end));
  return sha.hex();
}

}  // namespace

std::optional<model::Verification> verify_ledger_streamed(const std::string& path) {
  // Only a regular file: opening a named pipe here would take its writer from the whole read.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  const FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  std::vector<model::HashMismatch> nested;
  const auto ledger = read_ledger_streamed(file.get(), path, [&nested](const StreamedObservation& observation) {
    std::string computed = own_hash(observation);
    const std::string& stored = model::str(observation.value["contentHash"]);
    if (computed != stored)
      nested.push_back({"$.observations[" + std::to_string(observation.index) + "].contentHash", stored, std::move(computed)});
  });
  if (!ledger) return std::nullopt;
  model::Verification verification;
  verification.type = std::string(model::artifact_spec(model::ArtifactKind::ledger).type);
  verification.known_kind = true;
  verification.content_hash = ledger->computed_hash;
  if (ledger->stored_hash != ledger->computed_hash)
    verification.mismatches.push_back({"$.contentHash", ledger->stored_hash, ledger->computed_hash});
  verification.mismatches.insert(verification.mismatches.end(), std::make_move_iterator(nested.begin()),
                                 std::make_move_iterator(nested.end()));
  return verification;
}

}  // namespace strata::store
