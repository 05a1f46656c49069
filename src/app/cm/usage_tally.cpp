// The usage report's two passes over the run logs (usage-boundary spec §3.3): claims and
// completions checked field by field as the reference `cm-usage-report.py` checks them
// ("non-negative int" is a JSON integer lexeme >= 0; identity fields are non-empty strings), and
// the totals by outcome, model and stage.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "strata/app/cm/usage_report.hpp"

namespace strata::app {

using model::Json;

std::string usage_count_text(UsageCount value) {
  if (value == 0) return "0";
  std::string digits;
  while (value != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  }
  return {digits.rbegin(), digits.rend()};
}

namespace {

constexpr const char* kIdentityFields[] = {"workflow", "runtime", "stage",  "role",
                                           "adapter",  "requested_model", "source", "purpose"};
constexpr const char* kTokenFields[] = {"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"};

// ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$
bool is_call_id(const std::string& id) {
  const auto alnum = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (id.empty() || id.size() > 128 || !alnum(id[0])) return false;
  return std::all_of(id.begin() + 1, id.end(), [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
}

const Json* member(const Json& row, const char* key) {
  const auto it = row.find(key);
  return it == row.end() ? nullptr : &*it;
}

// The string value of a key, or nullptr when absent or not a string.
const std::string* string_member(const Json& row, const char* key) {
  const Json* v = member(row, key);
  return v != nullptr && v->is_string() ? &v->get_ref<const std::string&>() : nullptr;
}

bool is_nonempty_string(const Json* v) { return v != nullptr && v->is_string() && !v->get_ref<const std::string&>().empty(); }

// A JSON integer >= 0 that fits 64 bits.
std::optional<std::uint64_t> nonnegative_int(const Json* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_number_unsigned()) return v->get<std::uint64_t>();
  if (v->is_number_integer() && v->get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v->get<std::int64_t>());
  return std::nullopt;
}

int outcome_index(const Json* v) {
  if (v == nullptr || !v->is_string()) return -1;
  for (int i = 0; i < 4; ++i)
    if (*v == kUsageOutcomes[i]) return i;
  return -1;
}

// The reasons shared by claims and completions: call id, phase, identity fields.
std::optional<std::string> common_row_error(const Json& row, const char* phase) {
  const std::string* call_id = string_member(row, "call_id");
  if (call_id == nullptr || !is_call_id(*call_id)) return "invalid call_id";
  const std::string* actual_phase = string_member(row, "phase");
  if (actual_phase == nullptr || *actual_phase != phase) return "invalid phase";
  for (const char* field : kIdentityFields)
    if (!is_nonempty_string(member(row, field))) return std::string("invalid ") + field;
  return std::nullopt;
}

std::optional<std::string> usage_row_error(const Json& row) {
  if (auto error = common_row_error(row, "complete")) return error;
  if (outcome_index(member(row, "outcome")) < 0) return "invalid outcome";
  const Json* duration = member(row, "duration_ms");
  if (duration != nullptr && !duration->is_null() && !nonnegative_int(duration)) return "invalid duration";
  const std::string* state = string_member(row, "usage_state");
  if (state != nullptr && *state == "observed") {
    if (!nonnegative_int(member(row, "input_tokens"))) return "invalid input count";
    if (!nonnegative_int(member(row, "output_tokens"))) return "invalid output count";
    for (const char* field : {"cache_read_tokens", "cache_write_tokens"}) {
      const Json* cache = member(row, field);
      if (cache != nullptr && !nonnegative_int(cache)) return "invalid cache count";
    }
    return std::nullopt;
  }
  if (state != nullptr && *state == "unavailable") {
    for (const char* field : kTokenFields)
      if (member(row, field) != nullptr) return "unavailable row contains token counts";
    return std::nullopt;
  }
  return "invalid usage state";
}

// Adds the duration of a row, when it has one, to each of the totals.
template <class... Totals>
void add_duration(const Json& row, Totals&... totals) {
  if (const auto duration = nonnegative_int(member(row, "duration_ms"))) {
    ((totals.duration_ms += *duration, totals.duration_observed_calls += 1), ...);
  }
}

template <class... Totals>
void add_tokens(const Json& row, Totals&... totals) {
  const auto value = [&](const char* field) -> UsageCount { return nonnegative_int(member(row, field)).value_or(0); };
  const UsageCount in = value("input_tokens"), out = value("output_tokens");
  const UsageCount cache_read = value("cache_read_tokens"), cache_write = value("cache_write_tokens");
  ((totals.input_tokens += in, totals.output_tokens += out, totals.cache_read_tokens += cache_read,
    totals.cache_write_tokens += cache_write),
   ...);
}

}  // namespace

void UsageTally::add_run(const std::string& run_id, const std::string& display_path, const std::vector<JsonlRow>& rows) {
  const auto at = [&](std::size_t line) { return display_path + ":" + std::to_string(line); };
  for (const JsonlRow& jsonl : rows) {
    const Json& row = jsonl.value;
    const std::string* row_run = string_member(row, "run_id");
    if (row_run == nullptr || *row_run != run_id) continue;
    const std::string* event = string_member(row, "event");
    if (event == nullptr) continue;
    if (*event == "model_call") {
      if (auto error = common_row_error(row, "claimed")) {
        warnings_.push_back("warning: ignored malformed model_call at " + at(jsonl.line) + " (" + *error + ")");
        continue;
      }
      Identity identity;
      for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = row[kIdentityFields[i]].get<std::string>();
      const CallKey key{run_id, row["call_id"].get<std::string>()};
      const auto existing = claims_.find(key);
      if (existing == claims_.end()) {
        claims_.emplace(key, Claim{std::move(identity), jsonl.line});
      } else if (existing->second.identity != identity) {
        ambiguous_.insert(key);
        warnings_.push_back("warning: conflicting model_call identity at " + at(jsonl.line));
      }
      continue;
    }
    if (*event != "model_usage") continue;
    const std::string* event_id = string_member(row, "event_id");
    const std::string dedupe_key = event_id != nullptr && !event_id->empty() ? *event_id : at(jsonl.line);
    if (!seen_usage_.insert(dedupe_key).second) continue;  // the same event again: not a call
    if (auto error = usage_row_error(row)) {
      ++invalid_calls_;
      warnings_.push_back("warning: ignored malformed model_usage at " + at(jsonl.line) + " (" + *error + ")");
      continue;
    }
    candidates_.push_back({run_id, display_path, jsonl.line, row});
  }
}

UsageReport UsageTally::finish(std::size_t runs) {
  UsageReport report;
  UsageSummary& summary = report.summary;
  summary.runs = runs;
  summary.invalid_calls = invalid_calls_;
  std::set<CallKey> seen_calls, completed;
  // Group keys in creation order; the sort below is stable, as the reference's is.
  std::map<std::array<std::string, 7>, std::size_t> observed_index;
  std::map<std::array<std::string, 4>, UsageTotals> unavailable;

  for (const Candidate& candidate : candidates_) {
    const Json& row = candidate.row;
    const std::string where = candidate.display_path + ":" + std::to_string(candidate.line);
    const auto text = [&](const char* field) { return row[field].get<std::string>(); };
    const CallKey key{candidate.run_id, text("call_id")};
    if (!seen_calls.insert(key).second) {
      ++summary.invalid_calls;
      warnings_.push_back("warning: ignored duplicate model_usage call_id at " + where);
      continue;
    }
    const auto claim = claims_.find(key);
    if (claim == claims_.end() && text("adapter") == "openai-compatible") {
      ++summary.invalid_calls;
      warnings_.push_back("warning: ignored managed model_usage without prior claim at " + where);
      continue;
    }
    if (claim != claims_.end()) {
      Identity identity;
      for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = text(kIdentityFields[i]);
      if (ambiguous_.count(key) != 0 || candidate.line <= claim->second.line || identity != claim->second.identity) {
        ++summary.invalid_calls;
        warnings_.push_back("warning: ignored model_usage with mismatched claim identity at " + where);
        continue;
      }
      completed.insert(key);
    }
    const std::string outcome = text("outcome");
    summary.outcomes[outcome_index(member(row, "outcome"))] += 1;
    if (text("usage_state") == "unavailable") {
      summary.unavailable_calls += 1;
      UsageTotals& group = unavailable[{text("workflow"), text("stage"), text("role"), outcome}];
      group.calls += 1;
      add_duration(row, group, summary.totals);
      continue;
    }
    // observed (validated in pass 1)
    std::string model = "unknown", model_source = "unreported";
    if (is_nonempty_string(member(row, "effective_model"))) {
      model = text("effective_model");
      model_source = "effective";
    } else if (is_nonempty_string(member(row, "requested_model"))) {
      model = text("requested_model");
      model_source = "requested";
    }
    std::array<std::string, 7> group_key{text("workflow"), text("stage"), text("role"), text("adapter"),
                                         model,            model_source,  outcome};
    const auto [slot, inserted] = observed_index.try_emplace(group_key, report.groups.size());
    if (inserted) {
      report.groups.push_back({group_key[0], group_key[1], group_key[2], group_key[3], group_key[4], group_key[5],
                               group_key[6], {}});
    }
    UsageTotals& group = report.groups[slot->second].totals;
    group.calls += 1;
    add_tokens(row, group, summary.totals);
    add_duration(row, group, summary.totals);
    summary.observed_calls += 1;
  }

  std::stable_sort(report.groups.begin(), report.groups.end(), [](const ObservedGroup& a, const ObservedGroup& b) {
    return std::tie(a.workflow, a.stage, a.role, a.adapter, a.model, a.outcome) <
           std::tie(b.workflow, b.stage, b.role, b.adapter, b.model, b.outcome);
  });
  for (const auto& [key, totals] : unavailable) report.unavailable_groups.push_back({key[0], key[1], key[2], key[3], totals});

  std::map<std::array<std::string, 6>, UsageCount> unresolved;
  for (const auto& [key, claim] : claims_) {
    if (completed.count(key) != 0) continue;
    const Identity& id = claim.identity;  // workflow runtime stage role adapter requested_model source purpose
    unresolved[{id[0], id[2], id[3], id[4], id[5], id[6]}] += 1;
  }
  for (const auto& [key, count] : unresolved) {
    report.unresolved_groups.push_back({key[0], key[1], key[2], key[3], key[4], key[5], count});
    summary.unresolved_claims += count;
  }
  report.warnings = warnings_;
  return report;
}

}  // namespace strata::app
