#include "strata/store/ledger_writer.hpp"

#include <unordered_set>

#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/ledger_hasher.hpp"
#include "strata/store/artifact_file.hpp"

namespace strata::store {
namespace {

using model::Json;

// The persisted layout of a ledger object, member by member, handed to the file writer in
// pieces of about kPiece bytes.
class LayoutWriter {
 public:
  explicit LayoutWriter(const PieceWriter& write) : write_(write) {}

  void member(const std::string& key, const Json& value) {
    open(key);
    text_ += model::pretty_json(value, 1);
  }
  void begin_array(const std::string& key) {
    open(key);
    text_ += '[';
    elements_ = 0;
  }
  void element(const Json& value) {
    text_ += elements_++ == 0 ? "\n    " : ",\n    ";
    text_ += model::pretty_json(value, 2);
    if (text_.size() >= kPiece) {
      write_(text_);
      text_.clear();
    }
  }
  void end_array() { text_ += elements_ == 0 ? "]" : "\n  ]"; }
  void close() {
    text_ += "\n}\n";
    write_(text_);
  }

 private:
  static constexpr std::size_t kPiece = 1 << 20;
  void open(const std::string& key) {
    text_ += first_ ? "\n  " : ",\n  ";
    first_ = false;
    model::append_json_string(text_, key);
    text_ += ": ";
  }

  const PieceWriter& write_;
  std::string text_ = "{";
  bool first_ = true;
  std::size_t elements_ = 0;
};

}  // namespace

void write_sealed_ledger(const std::string& ledger_path, const Json& sealed) {
  write_file_atomically(ledger_path, [&sealed](const PieceWriter& write) {
    LayoutWriter layout(write);
    for (const auto& [key, value] : sealed.get_ref<const Json::object_t&>()) {
      if (key != "observations") {
        layout.member(key, value);
        continue;
      }
      layout.begin_array(key);
      for (const auto& observation : value) layout.element(observation);
      layout.end_array();
    }
    layout.close();
  });
}

std::string write_ledger_streamed(const std::string& ledger_path, const std::string& ledger_version, std::size_t count,
                                  const std::function<Json(std::size_t)>& observation, std::string* hash_state) {
  if (count > model::kMaxLedgerObservations)
    throw Error("A ledger holds at most 100000 observations; this one would hold " + std::to_string(count) + ".");
  // Written in model::seal_checked_ledger's member order; the seal follows the observations.
  const Json top = model::ledger_without_observations(ledger_version);
  std::string content_hash;
  write_file_atomically(ledger_path, [&](const PieceWriter& write) {
    model::LedgerHasher hasher(top);
    std::unordered_set<std::string> seen;
    LayoutWriter layout(write);
    for (const char* key : {"type", "schemaVersion", "ledgerVersion"}) layout.member(key, top[key]);
    layout.begin_array("observations");
    for (std::size_t i = 0; i < count; ++i) {
      const Json sealed = observation(i);
      const std::string& hash = sealed["contentHash"].get_ref<const std::string&>();
      if (!seen.insert(hash).second) throw Error("Duplicate observation id.", "$.observations (contentHash " + hash + ")");
      hasher.append(sealed);
      layout.element(sealed);
    }
    layout.end_array();
    content_hash = hasher.hash();
    if (hash_state != nullptr) *hash_state = hasher.saved_state();
    layout.member("contentHash", content_hash);
    layout.member("contentHashAlgo", top["contentHashAlgo"]);
    layout.close();
  });
  return content_hash;
}

}  // namespace strata::store
