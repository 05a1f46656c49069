#include "strata/app/view/observation_table.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/study/hex_text.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/store/ledger_journal.hpp"
#include "strata/store/ledger_stream.hpp"

namespace strata::app {
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

// A file opened to read, not through a link, and only when it is a regular file (-1 otherwise).
int open_regular(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat st {};
  if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    ::close(fd);
    return -1;
  }
  return fd;
}

Json optional_json(const std::optional<double>& value) { return value ? Json(*value) : Json(nullptr); }

std::optional<ContentHash> hash_bytes(const std::string& hex) {
  ContentHash bytes{};
  if (!model::bytes_of_hex(hex, bytes.data(), bytes.size())) return std::nullopt;
  return bytes;
}

std::string hash_hex(const ContentHash& bytes) { return model::hex_of(bytes.data(), bytes.size()); }

// The agreement of a row with the verifier, as the "verified" filter names it.
std::string verified_state(const ObservationRow& row) {
  if (!row.verified_total) return "not-verified";
  return *row.verified_total > 0 && row.verified_passed == row.verified_total ? "passed" : "failed";
}

// A filter on a text: the id it must have, none (no filter), or a value no row has.
struct TextFilter {
  bool active = false;
  std::optional<TextId> id;
  bool accepts(TextId value) const { return !active || (id && *id == value); }
};

struct RowFilter {
  TextFilter arm, run_id, claimed, adjudicated, status, error_code;
  std::string verified;
};

bool matches(const ObservationRow& row, const RowFilter& q) {
  if (!q.arm.accepts(row.arm) || !q.run_id.accepts(row.run_id) || !q.claimed.accepts(row.claimed) ||
      !q.adjudicated.accepts(row.adjudicated) || !q.status.accepts(row.status) || !q.error_code.accepts(row.error_code))
    return false;
  if (!q.verified.empty()) {
    if (q.verified == "claim-false" || q.verified == "claim-true") {
      if (!row.claim_agrees || (*row.claim_agrees == 1) != (q.verified == "claim-true")) return false;
    } else if (verified_state(row) != q.verified) {
      return false;
    }
  }
  return true;
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

TextId ObservationTable::text_id(const std::string& text) {
  const auto [it, added] = text_ids_.try_emplace(text, static_cast<TextId>(texts_.size()));
  if (added) texts_.push_back(text);
  return it->second;
}

bool ObservationTable::add(const Json& o, ObservationRow::Source source, std::uint64_t offset, std::size_t length) {
  const auto hash = hash_bytes(text_at(o, "contentHash"));
  if (!hash || !hashes_.insert(*hash).second) return false;  // a fold leaves both copies for a moment
  ObservationRow row;
  row.content_hash = *hash;
  const Json& task = o["task"];
  const Json& execution = o["execution"];
  const Json empty = Json::object();
  const Json& measurements = o.contains("measurements") && o["measurements"].is_object() ? o["measurements"] : empty;
  const Json& adjudication = o.contains("adjudication") ? o["adjudication"] : empty;
  row.run_id = text_id(text_at(o, "runId"));
  row.observed_at = text_at(o, "observedAt");
  row.task_id = text_id(text_at(task, "taskId"));
  row.repository_id = text_id(text_at(task, "repositoryId"));
  row.category = text_id(text_at(task, "category"));
  row.model_id = text_id(text_at(task, "modelId"));
  row.scenario_id = text_id(text_at(task, "scenarioId"));
  row.arm = text_id(text_at(task, "modelId") + " / " + text_at(task, "scenarioId"));
  row.replicate = number_at(task, "replicate");
  row.status = text_id(text_at(execution, "status"));
  row.error_code = text_id(text_at(execution, "errorCode"));
  row.claimed = text_id(text_at(o, "taskOutcome"));
  row.adjudicated = text_id(adjudication.contains("outcome") ? text_at(adjudication, "outcome") : text_at(adjudication, "status"));
  row.input_tokens = number_at(execution, "inputTokens");
  row.output_tokens = number_at(execution, "outputTokens");
  row.duration_ms = number_at(execution, "durationMs");
  row.cost_usd = model::number_member(measurements, "agentCostUsd");
  row.verified_passed = model::number_member(measurements, "verifiedChecksPassed");
  row.verified_total = model::number_member(measurements, "verifiedChecksTotal");
  row.claim_agrees = model::number_member(measurements, "verifiedClaimAgrees");
  row.source = source;
  row.offset = offset;
  row.length = static_cast<std::uint32_t>(length);
  if (source == ObservationRow::Source::journal) ++journal_rows_;
  rows_.push_back(std::move(row));
  return true;
}

void ObservationTable::reload() {
  rows_.clear();
  hashes_.clear();
  problem_.clear();
  journal_rows_ = 0;
  journal_read_ = 0;
  journal_stamp_ = {};
  ledger_stamp_ = stamp_of(ledger_path_);
  if (ledger_stamp_.exists) {
    const store::FileDescriptor fd(open_regular(ledger_path_));
    std::optional<store::StreamedLedger> streamed;
    if (fd.get() >= 0)
      streamed = store::read_ledger_streamed(fd.get(), ledger_path_, [&](const store::StreamedObservation& o) {
        add(o.value, ObservationRow::Source::ledger, o.offset, o.text.size());
      });
    if (!streamed) {  // an unusual layout or a damaged file: a whole read says which
      rows_.clear();
      hashes_.clear();
      journal_rows_ = 0;
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
  const store::FileDescriptor fd(open_regular(journal_path_));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) return 0;
  std::string text;
  try {
    text = store::read_file_range(fd.get(), journal_read_, static_cast<std::uint64_t>(st.st_size) - journal_read_, journal_path_);
  } catch (const Error&) {
    return 0;  // shorter than it was a moment ago: a fold; the next refresh reads both again
  }
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

Json ObservationTable::row_json(std::size_t index) const {
  const ObservationRow& row = rows_[index];
  const std::string& error = text(row.error_code);
  return Json{{"index", index},
              {"contentHash", hash_hex(row.content_hash)},
              {"runId", text(row.run_id)},
              {"taskId", text(row.task_id)},
              {"repositoryId", text(row.repository_id)},
              {"category", text(row.category)},
              {"modelId", text(row.model_id)},
              {"scenarioId", text(row.scenario_id)},
              {"arm", text(row.arm)},
              {"replicate", row.replicate},
              {"observedAt", row.observed_at},
              {"status", text(row.status)},
              {"errorCode", error.empty() ? Json(nullptr) : Json(error)},
              {"claimed", text(row.claimed)},
              {"adjudicated", text(row.adjudicated)},
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
  const auto filter_of = [&](const std::string& value) {
    TextFilter f;
    f.active = !value.empty();
    if (f.active) {
      const auto it = text_ids_.find(value);
      if (it != text_ids_.end()) f.id = it->second;
    }
    return f;
  };
  const RowFilter filter{filter_of(q.arm), filter_of(q.run_id), filter_of(q.claimed), filter_of(q.adjudicated),
                         filter_of(q.status), filter_of(q.error_code), q.verified};
  std::vector<std::size_t> selected;
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (matches(rows_[i], filter)) selected.push_back(i);
  if (q.sort != "index") {
    // One key per row, computed once: a text column sorts by its text's rank among the pool's.
    std::vector<TextId> order(texts_.size());
    std::vector<std::uint32_t> rank(texts_.size());
    for (TextId i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](TextId a, TextId b) { return texts_[a] < texts_[b]; });
    for (std::uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
    const std::string& c = q.sort;
    const auto key = [&](const ObservationRow& row, std::size_t index) -> double {
      const auto or_low = [](const std::optional<double>& v) { return v ? *v : -1.0; };
      if (c == "task") return rank[row.task_id];
      if (c == "arm") return rank[row.arm];
      if (c == "run") return rank[row.run_id];
      if (c == "status") return rank[row.status];
      if (c == "error") return rank[row.error_code];
      if (c == "claimed") return rank[row.claimed];
      if (c == "adjudicated") return rank[row.adjudicated];
      if (c == "tokens") return row.input_tokens + row.output_tokens;
      if (c == "cost") return or_low(row.cost_usd);
      if (c == "duration") return row.duration_ms;
      if (c == "verified") return row.verified_total ? row.verified_passed.value_or(0) - *row.verified_total : -1e18;
      return static_cast<double>(index);
    };
    if (c == "observedAt") {
      std::stable_sort(selected.begin(), selected.end(), [&](std::size_t a, std::size_t b) { return rows_[a].observed_at < rows_[b].observed_at; });
    } else {
      std::vector<std::pair<double, std::size_t>> keyed;
      keyed.reserve(selected.size());
      for (std::size_t i : selected) keyed.emplace_back(key(rows_[i], i), i);
      std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (std::size_t k = 0; k < keyed.size(); ++k) selected[k] = keyed[k].second;
    }
  }
  if (q.descending) std::reverse(selected.begin(), selected.end());
  Json page = Json::array();
  const std::size_t limit = std::min<std::size_t>(q.limit, 500);
  for (std::size_t k = q.offset; k < selected.size() && k < q.offset + limit; ++k) page.push_back(row_json(selected[k]));
  return Json{{"total", selected.size()}, {"offset", q.offset}, {"limit", limit}, {"rows", std::move(page)}};
}

Json ObservationTable::summary() const {
  double input = 0, output = 0, cost = 0;
  std::size_t failures = 0, priced = 0;
  std::map<std::string, std::size_t> runs;
  std::set<std::string> arms, claimed, adjudicated, statuses, errors;
  std::vector<std::size_t> per_run(texts_.size(), 0);
  std::vector<bool> arm_seen(texts_.size()), claimed_seen(texts_.size()), adjudicated_seen(texts_.size()),
      status_seen(texts_.size()), error_seen(texts_.size());
  const TextId completed = text_ids_.count("completed") > 0 ? text_ids_.at("completed") : static_cast<TextId>(-1);
  for (const auto& row : rows_) {
    input += row.input_tokens;
    output += row.output_tokens;
    if (row.cost_usd) {
      cost += *row.cost_usd;
      ++priced;
    }
    if (row.status != completed) ++failures;
    ++per_run[row.run_id];
    arm_seen[row.arm] = claimed_seen[row.claimed] = adjudicated_seen[row.adjudicated] = status_seen[row.status] = true;
    error_seen[row.error_code] = true;
  }
  for (TextId id = 0; id < texts_.size(); ++id) {
    if (per_run[id] > 0) runs[texts_[id]] = per_run[id];
    if (arm_seen[id]) arms.insert(texts_[id]);
    if (claimed_seen[id]) claimed.insert(texts_[id]);
    if (adjudicated_seen[id]) adjudicated.insert(texts_[id]);
    if (status_seen[id]) statuses.insert(texts_[id]);
    if (error_seen[id] && !texts_[id].empty()) errors.insert(texts_[id]);
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
      const std::string& path = row.source == ObservationRow::Source::ledger ? ledger_path_ : journal_path_;
      const store::FileDescriptor fd(open_regular(path));
      if (fd.get() < 0) return std::nullopt;
      const std::string text = store::read_file_range(fd.get(), row.offset, row.length, path);  // throws when it is shorter now
      value = row.source == ObservationRow::Source::ledger ? store::parse_ledger_observation(text) : store::verified_journal_line(text);
    }
    if (!value || text_at(*value, "contentHash") != hash_hex(row.content_hash)) return std::nullopt;
    return value;
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace strata::app
