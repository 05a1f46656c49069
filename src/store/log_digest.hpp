#pragma once
// What one pass over an event log establishes, for every question the writer asks of it
// under the locks: which rows carry which event id (dedup, §2.9 / lifecycle §2.1 step 2),
// which runs are running or done and which one is the latest (run selection, §2.6), and
// each run's resource and test_run state (lifecycle §2.2-§2.4). It is a left fold over the
// log's lines, so the digest of a prefix plus the lines after it equals the digest of the
// whole file: store/state_index keeps the digest of a prefix beside the log and folds only
// what was appended since. Pure: no I/O.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/model/cm/lifecycle_state.hpp"

namespace strata::store::event_log {

struct RunDigest {
  std::string status;  // "running" or "done": the project-log run state of §2.6
  model::lifecycle::RunLifecycle lifecycle;
};

class LogDigest {
 public:
  // Folds `bytes` (the log from byte `offset` on), split on LF, CRLF or a lone CR; the
  // last line need not be terminated.
  void add_text(std::string_view bytes, std::uint64_t offset);
  void add_line(std::string_view line, std::uint64_t offset);

  // The byte offset of the first row whose event_id is `event_id`. Only ids in the
  // writer's own form (lower-case UUID text) are kept: the writer never looks up another.
  std::optional<std::uint64_t> event_offset(std::string_view event_id) const;

  bool undecodable() const { return undecodable_; }  // ill-formed UTF-8 somewhere
  bool unparseable() const { return unparseable_; }  // a line json.loads refuses somewhere
  const std::optional<std::string>& latest_run() const { return latest_run_; }
  const RunDigest* run(const std::string& run_id) const;

  // The digest as the state index stores it: a JSON summary and the id table (sorted,
  // 24 bytes per row: 16-byte UUID, 8-byte little-endian offset).
  nlohmann::json summary() const;
  std::string id_table() const;
  // The inverse; nullopt when the stored form is damaged. The id table is searched in
  // place, not copied: `id_table` must outlive the digest (state_index maps the file).
  static std::optional<LogDigest> restore(const nlohmann::json& summary, std::string_view id_table);

 private:
  using Uuid = std::array<unsigned char, 16>;
  struct UuidHash {
    std::size_t operator()(const Uuid& id) const noexcept;
  };
  struct IdRow {
    Uuid id;
    std::uint64_t offset;
  };
  static std::optional<Uuid> parse_uuid(std::string_view text);
  std::optional<std::uint64_t> find(const Uuid& id) const;
  std::uint64_t stored_offset(std::size_t row) const;

  bool undecodable_ = false;
  bool unparseable_ = false;
  std::optional<std::string> latest_run_;
  std::map<std::string, RunDigest> runs_;
  std::string_view indexed_ids_;  // the state index's id table as stored: 24-byte rows sorted by id
  std::unordered_map<Uuid, std::uint64_t, UuidHash> new_ids_;  // folded since
};

}  // namespace strata::store::event_log
