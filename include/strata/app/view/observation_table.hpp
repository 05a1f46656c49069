#pragma once
// What `strata view` shows of one ledger's observations (docs/VIEWER.md): a row per observation,
// projected from the ledger (read an observation at a time) and its journal, which is followed
// from where it was last read (`refresh`), so an observation appears once it is durable without
// the ledger being read again. A fold of the journal into the ledger (or any other change of the
// ledger file) reads both again. Rows are filtered, sorted and paged on request; an
// observation's whole text is read again from where its row says it lies. Never writes.
#include <array>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::app {

// A row holds its repeated texts (ids, statuses, outcomes) as numbers into the table's pool, and
// its content hash as bytes: 100,000 rows fit in about 25 MB (docs/BENCHMARKS.md, "The viewer").
using TextId = std::uint32_t;
using ContentHash = std::array<unsigned char, 32>;

struct ObservationRow {
  ContentHash content_hash{};
  TextId run_id = 0, task_id = 0, repository_id = 0, category = 0, model_id = 0, scenario_id = 0;
  TextId status = 0, error_code = 0;   // execution.status, execution.errorCode ("" when none)
  TextId claimed = 0;                  // taskOutcome: the agent's own word
  TextId adjudicated = 0;              // adjudication.outcome, or its status while there is none ("pending")
  TextId arm = 0;                      // "modelId / scenarioId"
  std::string observed_at;
  double replicate = 0, input_tokens = 0, output_tokens = 0, duration_ms = 0;
  std::optional<double> cost_usd;      // measurements.agentCostUsd
  std::optional<double> verified_passed, verified_total, claim_agrees;  // the verifier's, when it ran
  // Where its bytes are: in the ledger file (streamed) or the journal, or only in a whole read.
  enum class Source : std::uint8_t { ledger, journal, ledger_whole } source = Source::ledger;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;  // ledger_whole: offset is the observation's index
};

// The query of the observation table (every member optional; "" = no filter).
struct TableQuery {
  std::string arm;          // "modelId / scenarioId"
  std::string run_id, claimed, adjudicated, status, error_code;
  std::string verified;     // "passed", "failed", "not-verified", "claim-false", "claim-true"
  std::string sort = "index";  // a column name (see docs/VIEWER.md)
  bool descending = false;
  std::size_t offset = 0, limit = 100;
};

class ObservationTable {
 public:
  explicit ObservationTable(std::string ledger_path);

  // Reads what is new. Returns the number of rows added, or nullopt when the table was read again
  // from the start (the ledger changed). Throws nothing: a file that cannot be read is noted in
  // problem() and the rows already read stay.
  std::optional<std::size_t> refresh();

  std::size_t size() const { return rows_.size(); }
  // Whether the journal holds observations the ledger does not (the ledger alone is then not all).
  bool journal_adds() const { return journal_rows_ > 0; }
  const std::string& ledger_path() const { return ledger_path_; }
  const std::string& problem() const { return problem_; }

  // {"total", "offset", "limit", "rows": [...]} after filters, sort and paging.
  model::Json query(const TableQuery& query) const;
  // {"observations", "failures", "inputTokens", "outputTokens", "costUsd", "runs": {id: count},
  //  "arms", "claimed", "adjudicated", "statuses", "errorCodes" (the filters' values)}.
  model::Json summary() const;
  // Row i as the table shows it (the query's rows are these).
  model::Json row_json(std::size_t index) const;
  // Observation `index` read again from the file its row names, or nullopt when it is no longer
  // there as it was (the caller refreshes and asks again).
  std::optional<model::Json> observation(std::size_t index) const;

 private:
  void reload();
  std::size_t read_journal_tail();
  bool add(const model::Json& observation, ObservationRow::Source source, std::uint64_t offset, std::size_t length);

  std::string ledger_path_, journal_path_;
  TextId text_id(const std::string& text);
  const std::string& text(TextId id) const { return texts_[id]; }

  std::vector<ObservationRow> rows_;
  struct HashOfHash {
    std::size_t operator()(const ContentHash& h) const { std::size_t v; std::memcpy(&v, h.data(), sizeof v); return v; }
  };
  std::unordered_set<ContentHash, HashOfHash> hashes_;
  std::vector<std::string> texts_;
  std::unordered_map<std::string, TextId> text_ids_;
  std::size_t journal_rows_ = 0;
  std::string problem_;
  // What was read: the ledger file's identity, and the journal's up to where.
  struct FileStamp {
    bool exists = false;
    std::uint64_t device = 0, inode = 0, size = 0;
    std::int64_t modified_ns = 0;
    bool operator==(const FileStamp&) const = default;
  };
  static FileStamp stamp_of(const std::string& path);
  FileStamp ledger_stamp_, journal_stamp_;
  std::uint64_t journal_read_ = 0;
  bool loaded_ = false;
};

}  // namespace strata::app
