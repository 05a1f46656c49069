#pragma once
// A verified ledger whose observations are read one at a time, for work that visits each
// observation once or twice (`strata adjudicate`): a large ledger's parse tree is never held.
// open_streamed() checks the file as `load_artifact` would (shape, seal, unique observation
// hashes) while reading it in pieces, and keeps only where each observation lies; it gives up
// (nullptr) on anything unusual, and the caller then loads the document whole, which reports
// the exact problem or succeeds (a pipe, an unusual member order) and is wrapped with the
// constructor below.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"
#include "strata/model/study/ledger_hasher.hpp"
#include "strata/store/file_descriptor.hpp"

namespace strata::store {

class LedgerSource {
 public:
  // The ledger file read and verified a piece at a time, or nullptr (see above).
  static std::unique_ptr<LedgerSource> open_streamed(const std::string& path);

  // A ledger already parsed and verified (model::parse_artifact), held whole.
  explicit LedgerSource(model::Json ledger);

  const std::string& ledger_version() const { return ledger_version_; }
  const std::string& content_hash() const { return content_hash_; }  // the seal, verified
  std::size_t size() const { return run_ids_.size(); }
  const std::vector<std::string>& run_ids() const { return run_ids_; }  // of each observation, in order

  // Observation i, parsed and normalised as in the verified ledger. Throws strata::Error
  // (located at the file) when the file no longer holds the bytes that were verified.
  model::Json observation(std::size_t i) const;

 private:
  LedgerSource() = default;
  bool read_and_verify();

  struct Span {
    std::uint64_t begin = 0;
    std::size_t length = 0;
    std::size_t fingerprint = 0;  // of the bytes, to notice a file changed under us
  };
  std::string path_;
  std::optional<FileDescriptor> file_;  // streamed: kept open for the reads
  std::vector<Span> spans_;  // streamed: where each observation lies
  model::Json tree_;         // held whole: the observations array
  std::vector<std::string> run_ids_;
  std::string ledger_version_;
  std::string content_hash_;
};

}  // namespace strata::store
