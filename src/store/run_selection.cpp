// Run selection (usage-boundary spec §2.6) and global run-file selection (§2.3).
#include "run_selection.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <vector>

namespace strata::store::event_log {
namespace {

bool has_string(const OrderedJson& row, const char* key, const std::string& expected) {
  const auto it = row.find(key);
  return it != row.end() && it->is_string() && it->get_ref<const std::string&>() == expected;
}

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

}  // namespace

std::optional<OrderedJson> load_pointer(const std::string& path) {
  if (!is_regular_file(path)) return std::nullopt;
  const auto rows = read_jsonl_objects(path);  // a pointer is one JSON object + LF
  if (rows.size() != 1) return std::nullopt;
  const auto it = rows.front().find("run_id");
  if (it == rows.front().end() || !it->is_string() || !is_run_id(it->get_ref<const std::string&>())) return std::nullopt;
  return rows.front();
}

RunChoice select_run(const ValidatedEvent& event, const std::optional<OrderedJson>& pointer,
                     const LogDigest* project_log) {
  if (event.run_id) return {*event.run_id, event.event == "run_start"};
  const bool terminal = event.event == "done" || event.event == "run_done";
  const auto state_of = [&](const std::string& id) {
    const RunDigest* run = project_log != nullptr ? project_log->run(id) : nullptr;
    return run != nullptr ? run->status : std::string();
  };
  if (pointer) {
    const std::string id = (*pointer)["run_id"].get<std::string>();
    if (has_string(*pointer, "status", "running") && state_of(id) != "done") return {id, false};
    if (has_string(*pointer, "status", "done") && terminal) return {id, false};
  }
  if (project_log != nullptr && project_log->latest_run()) {
    const std::string& latest = *project_log->latest_run();
    if (state_of(latest) == "running") return {latest, false};
    if (state_of(latest) == "done" && terminal) return {latest, false};
  }
  return {utc_stamp() + "-" + random_hex(8), true};
}

std::string select_global_log(const std::string& home, const std::string& run_id,
                              const std::optional<OrderedJson>& pointer, const std::string& month) {
  const std::string name = run_id + ".jsonl";
  const std::string runs = home + "/runs";
  if (pointer && has_string(*pointer, "run_id", run_id)) {
    const auto raw = pointer->find("global_log");
    if (raw != pointer->end() && raw->is_string()) {
      const std::string candidate = resolve_path(raw->get_ref<const std::string&>());
      const std::string prefix = runs + "/";
      if (candidate.compare(0, prefix.size(), prefix) == 0) {
        const std::string rest = candidate.substr(prefix.size());  // NNNN-NN/<run>.jsonl
        const bool month_dir = rest.size() > 8 && rest[4] == '-' && rest[7] == '/' &&
                               std::all_of(rest.begin(), rest.begin() + 7, [](char c) { return c == '-' || (c >= '0' && c <= '9'); });
        if (month_dir && rest.substr(8) == name) return candidate;
      }
    }
  }
  std::vector<std::string> matches;
  if (DIR* dir = ::opendir(runs.c_str())) {
    while (const dirent* entry = ::readdir(dir)) {
      const std::string entry_name = entry->d_name;
      if (entry_name == "." || entry_name == "..") continue;
      const std::string candidate = runs + "/" + entry_name + "/" + name;
      struct stat info {};
      if (::stat(candidate.c_str(), &info) == 0) matches.push_back(candidate);
    }
    ::closedir(dir);
  }
  std::sort(matches.begin(), matches.end());
  if (matches.size() > 1)
    throw UsageError("multiple global log files found for run_id " + run_id + "; repair the local mirror before continuing");
  if (matches.size() == 1) return resolve_path(matches.front());
  return runs + "/" + month + "/" + name;
}

}  // namespace strata::store::event_log
