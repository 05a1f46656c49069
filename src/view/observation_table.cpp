#include "strata/view/observation_table.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/store/ledger_journal.hpp"
#include "strata/store/ledger_stream.hpp"

namespace strata::view {
namespace {

using model::Json;

std::string text_at(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double number_at(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::optional<double> optional_at(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it != object.end() && it->is_number()) return it->get<double>();
  return std::nullopt;
}

// Bytes [offset, offset + length) of a file, or nullopt when it is shorter or cannot be read.
std::optional<std::string> read_span(const std::string& path, std::uint64_t offset, std::size_t length) {
  store::FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd.get() < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string text(length, '\0');
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd.get(), text.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n <= 0) return std::nullopt;
    done += static_cast<std::size_t>(n);
  }
  return text;
}

Json optional_json(const std::optional<double>& value) { return value ? Json(*value) : Json(nullptr); }

// The agreement of a row with the verifier, as the "verified" filter names it.
std::string verified_state(const ObservationRow& row) {
  if (!row.verified_total) return "not-verified";
  return *row.verified_total > 0 && row.verified_passed == row.verified_total ? "passed" : "failed";
}

std::string arm_of(const ObservationRow& row) { return row.model_id + " / " + row.scenario_id; }

bool matches(const ObservationRow& row, const TableQuery& q) {
  if (!q.arm.empty() && arm_of(row) != q.arm) return false;
  if (!q.run_id.empty() && row.run_id != q.run_id) return false;
  if (!q.claimed.empty() && row.claimed != q.claimed) return false;
  if (!q.adjudicated.empty() && row.adjudicated != q.adjudicated) return false;
  if (!q.status.empty() && row.status != q.status) return false;
  if (!q.error_code.empty() && row.error_code != q.error_code) return false;
  if (!q.verified.empty()) {
    if (q.verified == "claim-false" || q.verified == "claim-true") {
      if (!row.claim_agrees || (*row.claim_agrees == 1) != (q.verified == "claim-true")) return false;
    } else if (verified_state(row) != q.verified) {
      return false;
    }
  }
  return true;
}

// The sort key of a column: a number or a text (absent numbers sort first).
struct SortKey {
  bool numeric = false;
  double number = 0;
  std::string_view text;
};

SortKey sort_key(const ObservationRow& row, const std::string& column, std::size_t index) {
  const auto number = [](std::optional<double> v) { return SortKey{true, v ? *v : -1.0, {}}; };
  if (column == "task") return {false, 0, row.task_id};
  if (column == "arm") return {false, 0, row.model_id};  // then the scenario, below
  if (column == "run") return {false, 0, row.run_id};
  if (column == "status") return {false, 0, row.status};
  if (column == "error") return {false, 0, row.error_code};
  if (column == "claimed") return {false, 0, row.claimed};
  if (column == "adjudicated") return {false, 0, row.adjudicated};
  if (column == "observedAt") return {false, 0, row.observed_at};
  if (column == "tokens") return number(row.input_tokens + row.output_tokens);
  if (column == "cost") return number(row.cost_usd);
  if (column == "duration") return number(row.duration_ms);
  if (column == "verified") return number(row.verified_total ? row.verified_passed.value_or(0) - *row.verified_total : std::optional<double>());
  return {true, static_cast<double>(index), {}};
}

}  // namespace

ObservationTable::ObservationTable(std::string ledger_path)
    : ledger_path_(std::move(ledger_path)), journal_path_(store::journal_path_for(ledger_path_)) {}

ObservationTable::FileStamp ObservationTable::stamp_of(const std::string& path) {
  FileStamp stamp;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return stamp;
  stamp.exists = true;
  stamp.device = st.st_dev;
  stamp.inode = st.st_ino;
  stamp.size = static_cast<std::uint64_t>(st.st_size);
  stamp.modified_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return stamp;
}

bool ObservationTable::add(const Json& o, ObservationRow::Source source, std::uint64_t offset, std::size_t length) {
  ObservationRow row;
  row.content_hash = text_at(o, "contentHash");
  if (!hashes_.insert(row.content_hash).second) return false;  // a fold leaves both copies for a moment
  const Json& task = o["task"];
  const Json& execution = o["execution"];
  const Json empty = Json::object();
  const Json& measurements = o.contains("measurements") && o["measurements"].is_object() ? o["measurements"] : empty;
  const Json& adjudication = o.contains("adjudication") ? o["adjudication"] : empty;
  row.execution_key = model::execution_key(task);
  row.run_id = text_at(o, "runId");
  row.observed_at = text_at(o, "observedAt");
  row.task_id = text_at(task, "taskId");
  row.repository_id = text_at(task, "repositoryId");
  row.category = text_at(task, "category");
  row.model_id = text_at(task, "modelId");
  row.scenario_id = text_at(task, "scenarioId");
  row.replicate = number_at(task, "replicate");
  row.status = text_at(execution, "status");
  row.error_code = text_at(execution, "errorCode");
  row.claimed = text_at(o, "taskOutcome");
  row.adjudicated = adjudication.contains("outcome") ? text_at(adjudication, "outcome") : text_at(adjudication, "status");
  row.input_tokens = number_at(execution, "inputTokens");
  row.output_tokens = number_at(execution, "outputTokens");
  row.duration_ms = number_at(execution, "durationMs");
  row.cost_usd = optional_at(measurements, "agentCostUsd");
  row.verified_passed = optional_at(measurements, "verifiedChecksPassed");
  row.verified_total = optional_at(measurements, "verifiedChecksTotal");
  row.claim_agrees = optional_at(measurements, "verifiedClaimAgrees");
  row.source = source;
  row.offset = offset;
  row.length = length;
  rows_.push_back(std::move(row));
  return true;
}

void ObservationTable::reload() {
  rows_.clear();
  hashes_.clear();
  problem_.clear();
  journal_read_ = 0;
  journal_stamp_ = {};
  ledger_stamp_ = stamp_of(ledger_path_);
  if (ledger_stamp_.exists) {
    store::FileDescriptor fd(::open(ledger_path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    std::optional<store::StreamedLedger> streamed;
    if (fd.get() >= 0)
      streamed = store::read_ledger_streamed(fd.get(), ledger_path_, [&](const store::StreamedObservation& o) {
        add(o.value, ObservationRow::Source::ledger, o.offset, o.text.size());
      });
    if (!streamed) {  // an unusual layout or a damaged file: a whole read says which
      rows_.clear();
      hashes_.clear();
      try {
        store::LedgerState state = store::read_ledger_state(ledger_path_);
        std::size_t index = 0;
        for (const Json& o : state.ledger["observations"]) add(o, ObservationRow::Source::ledger_whole, index++, 0);
      } catch (const Error& e) {
        problem_ = std::string(e.what()) + (e.location().empty() ? "" : " (" + e.location() + ")");
      }
    }
  }
  read_journal_tail();
  loaded_ = true;
}

std::size_t ObservationTable::read_journal_tail() {
  const FileStamp now = stamp_of(journal_path_);
  if (!now.exists || now.size <= journal_read_) {
    journal_stamp_ = now;
    return 0;
  }
  store::FileDescriptor fd(::open(journal_path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  const std::uint64_t end = static_cast<std::uint64_t>(st.st_size);
  std::string text(end - journal_read_, '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pread(fd.get(), text.data() + done, text.size() - done, static_cast<off_t>(journal_read_ + done));
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  std::size_t added = 0, start = 0;
  while (start < text.size()) {
    const std::size_t newline = text.find('\n', start);
    if (newline == std::string::npos) break;  // a line being written: read it next time
    const std::string_view line = std::string_view(text).substr(start, newline - start);
    auto observation = store::verified_journal_line(line);
    if (!observation) break;  // what a resume would drop; nothing after it counts
    if (add(*observation, ObservationRow::Source::journal, journal_read_ + start, line.size())) ++added;
    start = newline + 1;
  }
  journal_read_ += start;
  journal_stamp_ = now;
  return added;
}

std::optional<std::size_t> ObservationTable::refresh() {
  if (!loaded_) {
    reload();
    return std::nullopt;
  }
  const FileStamp ledger_now = stamp_of(ledger_path_);
  const FileStamp journal_now = stamp_of(journal_path_);
  const bool journal_replaced = journal_now.exists != journal_stamp_.exists || journal_now.inode != journal_stamp_.inode ||
                                journal_now.size < journal_read_;
  if (!(ledger_now == ledger_stamp_) || (journal_stamp_.exists && journal_replaced)) {
    reload();
    return std::nullopt;
  }
  return read_journal_tail();
}

Json ObservationTable::row_json(const ObservationRow& row, std::size_t index) {
  return Json{{"index", index},
              {"executionKey", row.execution_key},
              {"contentHash", row.content_hash},
              {"runId", row.run_id},
              {"taskId", row.task_id},
              {"repositoryId", row.repository_id},
              {"category", row.category},
              {"modelId", row.model_id},
              {"scenarioId", row.scenario_id},
              {"arm", arm_of(row)},
              {"replicate", row.replicate},
              {"observedAt", row.observed_at},
              {"status", row.status},
              {"errorCode", row.error_code.empty() ? Json(nullptr) : Json(row.error_code)},
              {"claimed", row.claimed},
              {"adjudicated", row.adjudicated},
              {"inputTokens", row.input_tokens},
              {"outputTokens", row.output_tokens},
              {"durationMs", row.duration_ms},
              {"costUsd", optional_json(row.cost_usd)},
              {"verifiedPassed", optional_json(row.verified_passed)},
              {"verifiedTotal", optional_json(row.verified_total)},
              {"claimAgrees", optional_json(row.claim_agrees)},
              {"verified", verified_state(row)}};
}

Json ObservationTable::query(const TableQuery& q) const {
  std::vector<std::size_t> selected;
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (matches(rows_[i], q)) selected.push_back(i);
  if (q.sort != "index") {
    std::stable_sort(selected.begin(), selected.end(), [&](std::size_t a, std::size_t b) {
      const SortKey ka = sort_key(rows_[a], q.sort, a), kb = sort_key(rows_[b], q.sort, b);
      if (ka.numeric) return ka.number < kb.number;
      if (ka.text != kb.text) return ka.text < kb.text;
      return q.sort == "arm" && rows_[a].scenario_id < rows_[b].scenario_id;
    });
  }
  if (q.descending) std::reverse(selected.begin(), selected.end());
  Json page = Json::array();
  const std::size_t limit = std::min<std::size_t>(q.limit, 500);
  for (std::size_t k = q.offset; k < selected.size() && k < q.offset + limit; ++k) page.push_back(row_json(rows_[selected[k]], selected[k]));
  return Json{{"total", selected.size()}, {"offset", q.offset}, {"limit", limit}, {"rows", std::move(page)}};
}

Json ObservationTable::summary() const {
  double input = 0, output = 0, cost = 0;
  std::size_t failures = 0, priced = 0;
  std::map<std::string, std::size_t> runs;
  std::set<std::string> arms, claimed, adjudicated, statuses, errors;
  for (const auto& row : rows_) {
    input += row.input_tokens;
    output += row.output_tokens;
    if (row.cost_usd) {
      cost += *row.cost_usd;
      ++priced;
    }
    if (row.status != "completed") ++failures;
    ++runs[row.run_id];
    arms.insert(arm_of(row));
    claimed.insert(row.claimed);
    adjudicated.insert(row.adjudicated);
    statuses.insert(row.status);
    if (!row.error_code.empty()) errors.insert(row.error_code);
  }
  return Json{{"observations", rows_.size()}, {"failures", failures}, {"inputTokens", input}, {"outputTokens", output},
              {"costUsd", priced > 0 ? Json(cost) : Json(nullptr)}, {"runs", runs}, {"arms", arms}, {"claimed", claimed},
              {"adjudicated", adjudicated}, {"statuses", statuses}, {"errorCodes", errors},
              {"problem", problem_.empty() ? Json(nullptr) : Json(problem_)}};
}

std::optional<Json> ObservationTable::observation(std::size_t index) const {
  if (index >= rows_.size()) return std::nullopt;
  const ObservationRow& row = rows_[index];
  try {
    std::optional<Json> value;
    if (row.source == ObservationRow::Source::ledger_whole) {
      store::LedgerState state = store::read_ledger_state(ledger_path_);
      const Json& all = state.ledger["observations"];
      if (row.offset < all.size()) value = all[row.offset];
    } else {
      const auto text = read_span(row.source == ObservationRow::Source::ledger ? ledger_path_ : journal_path_, row.offset, row.length);
      if (text) value = row.source == ObservationRow::Source::ledger ? store::parse_ledger_observation(*text) : store::verified_journal_line(*text);
    }
    if (!value || text_at(*value, "contentHash") != row.content_hash) return std::nullopt;
    return value;
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace strata::view
