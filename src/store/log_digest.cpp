// The fold behind LogDigest (see the header) and its stored form.
#include "log_digest.hpp"

#include <algorithm>
#include <cstring>

#include "event_log_internal.hpp"
#include "strata/model/json/python_json_line.hpp"
#include "strata/model/json/utf.hpp"

namespace strata::store::event_log {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool is_terminal_event(const std::string& event) { return event == "done" || event == "run_done"; }

}  // namespace

std::size_t LogDigest::UuidHash::operator()(const Uuid& id) const noexcept {
  std::size_t value = 0;
  std::memcpy(&value, id.data(), sizeof value);  // UUIDv5 bytes are SHA-1 output: already uniform
  return value;
}

std::optional<LogDigest::Uuid> LogDigest::parse_uuid(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  Uuid id{};
  std::size_t byte = 0;
  for (std::size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return std::nullopt;
      ++i;
      continue;
    }
    const int high = hex_value(text[i]), low = hex_value(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    id[byte++] = static_cast<unsigned char>(high * 16 + low);
    i += 2;
  }
  return id;
}

void LogDigest::add_text(std::string_view bytes, std::uint64_t offset) {
  std::size_t start = 0;
  while (start < bytes.size()) {
    std::size_t end = start;
    while (end < bytes.size() && bytes[end] != '\n' && bytes[end] != '\r') ++end;
    add_line(bytes.substr(start, end - start), offset + start);
    if (end < bytes.size() && bytes[end] == '\r' && end + 1 < bytes.size() && bytes[end + 1] == '\n') ++end;
    start = end + 1;
  }
}

void LogDigest::add_line(std::string_view line, std::uint64_t offset) {
  // The reference decodes the whole file before parsing a line: ill-formed UTF-8 anywhere
  // fails every lifecycle read (UnicodeDecodeError), while the lenient readers go on.
  if (!model::is_valid_utf8(line)) undecodable_ = true;
  const std::optional<model::Json> row = model::parse_python_json_line(line);
  if (!row) {
    unparseable_ = true;
    return;
  }
  if (!row->is_object()) return;
  const auto event_id = row->find("event_id");
  if (event_id != row->end() && event_id->is_string()) {
    if (const auto id = parse_uuid(event_id->get_ref<const std::string&>()); id && !find(*id)) new_ids_.emplace(*id, offset);
  }
  const auto run_id = row->find("run_id");
  const auto event = row->find("event");
  if (run_id == row->end() || !run_id->is_string() || !is_run_id(run_id->get_ref<const std::string&>())) return;
  if (event == row->end() || !event->is_string()) return;
  const std::string& id = run_id->get_ref<const std::string&>();
  const std::string& name = event->get_ref<const std::string&>();
  latest_run_ = id;
  RunDigest& run = runs_[id];
  if (name == "run_start") run.status = "running";
  else if (is_terminal_event(name)) run.status = "done";
  else if (run.status.empty()) run.status = "running";
  run.lifecycle.read_row(*row);
}

std::uint64_t LogDigest::stored_offset(std::size_t row) const {
  std::uint64_t offset = 0;
  for (int b = 7; b >= 0; --b) offset = (offset << 8) | static_cast<unsigned char>(indexed_ids_[row * 24 + 16 + b]);
  return offset;
}

std::optional<std::uint64_t> LogDigest::find(const Uuid& id) const {
  std::size_t low = 0, high = indexed_ids_.size() / 24;  // rows of the stored table, searched in place
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    const int order = std::memcmp(indexed_ids_.data() + middle * 24, id.data(), 16);
    if (order == 0) return stored_offset(middle);
    if (order < 0) low = middle + 1;
    else high = middle;
  }
  const auto recent = new_ids_.find(id);
  if (recent != new_ids_.end()) return recent->second;
  return std::nullopt;
}

std::optional<std::uint64_t> LogDigest::event_offset(std::string_view event_id) const {
  const auto id = parse_uuid(event_id);
  return id ? find(*id) : std::nullopt;
}

const RunDigest* LogDigest::run(const std::string& run_id) const {
  const auto it = runs_.find(run_id);
  return it == runs_.end() ? nullptr : &it->second;
}

nlohmann::json LogDigest::summary() const {
  nlohmann::json runs = nlohmann::json::object();
  for (const auto& [id, run] : runs_) {
    nlohmann::json entry = {{"status", run.status}};
    const auto& life = run.lifecycle;
    const auto unreleased = life.resources.unreleased();
    if (!unreleased.empty()) {
      nlohmann::json resources = nlohmann::json::object();
      for (const auto& [resource_id, resource] : unreleased) resources[resource_id] = {resource.phase, resource.kind};
      entry["resources"] = std::move(resources);
    }
    if (std::string released = life.resources.released_text(); !released.empty()) entry["released"] = std::move(released);
    if (life.test_run.active) entry["test_run_active"] = true;
    if (!life.test_run.open_cases.empty()) entry["open_cases"] = life.test_run.open_cases;
    if (life.resources_unverifiable) entry["resources_unverifiable"] = true;
    if (life.test_run_unverifiable) entry["test_run_unverifiable"] = true;
    runs[id] = std::move(entry);
  }
  return {{"undecodable", undecodable_},
          {"unparseable", unparseable_},
          {"latest_run", latest_run_ ? nlohmann::json(*latest_run_) : nlohmann::json(nullptr)},
          {"runs", std::move(runs)}};
}

std::string LogDigest::id_table() const {
  // New ids are disjoint from the stored ones (find() before each insert): merge two sorted runs.
  std::vector<IdRow> added;
  for (const auto& [id, offset] : new_ids_) added.push_back({id, offset});
  std::sort(added.begin(), added.end(), [](const IdRow& a, const IdRow& b) { return a.id < b.id; });
  std::string out;
  out.reserve(indexed_ids_.size() + added.size() * 24);
  const auto append_row = [&out](const IdRow& row) {
    out.append(reinterpret_cast<const char*>(row.id.data()), 16);
    for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((row.offset >> (8 * b)) & 0xFF));
  };
  std::size_t stored = 0;
  const std::size_t stored_rows = indexed_ids_.size() / 24;
  for (const IdRow& row : added) {
    while (stored < stored_rows && std::memcmp(indexed_ids_.data() + stored * 24, row.id.data(), 16) < 0)
      out.append(indexed_ids_.substr(stored++ * 24, 24));
    append_row(row);
  }
  out.append(indexed_ids_.substr(stored * 24));
  return out;
}

std::optional<LogDigest> LogDigest::restore(const nlohmann::json& summary, std::string_view id_table) {
  try {
    LogDigest digest;
    digest.undecodable_ = summary.at("undecodable").get<bool>();
    digest.unparseable_ = summary.at("unparseable").get<bool>();
    if (const auto& latest = summary.at("latest_run"); !latest.is_null()) digest.latest_run_ = latest.get<std::string>();
    for (const auto& [id, entry] : summary.at("runs").items()) {
      RunDigest run;
      run.status = entry.at("status").get<std::string>();
      auto& life = run.lifecycle;
      std::map<std::string, model::lifecycle::Resource> unreleased;
      if (entry.contains("resources"))
        for (const auto& [resource_id, pair] : entry["resources"].items())
          unreleased[resource_id] = {pair.at(0).get<std::string>(), pair.at(1).get<std::string>()};
      life.resources.restore(std::move(unreleased), entry.value("released", std::string()));
      life.test_run.active = entry.value("test_run_active", false);
      if (entry.contains("open_cases")) life.test_run.open_cases = entry["open_cases"].get<std::set<std::string>>();
      life.resources_unverifiable = entry.value("resources_unverifiable", false);
      life.test_run_unverifiable = entry.value("test_run_unverifiable", false);
      digest.runs_.emplace(id, std::move(run));
    }
    if (id_table.size() % 24 != 0) return std::nullopt;
    // Searched in place (a write touches a few of its pages, not 24 bytes per event); the
    // index is fsynced before its rename, so its length check is what guards a damaged one.
    digest.indexed_ids_ = id_table;
    return digest;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace strata::store::event_log
