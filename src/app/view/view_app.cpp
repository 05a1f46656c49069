#include "strata/app/view/view_app.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <ctime>
#include <filesystem>

#include "strata/app/results/study_metrics.hpp"
#include "strata/app/results/study_report.hpp"
#include "strata/app/study/run_live_state.hpp"
#include "strata/error.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/utf.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/model/study/sampling.hpp"
#include "strata/report/report_parts.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/store/ledger_journal.hpp"
#include "strata/store/ledger_source.hpp"
#include "strata/store/run_inputs_record.hpp"
#include "strata/store/untrusted_file.hpp"

namespace strata::app {
namespace {

namespace fs = std::filesystem;
using model::Json;

constexpr const char* kLedgerType = "\"controlled-study-observation-ledger\"";
constexpr const char* kPlanType = "\"controlled-study-run-plan\"";
constexpr const char* kSuiteType = "\"study-task-suite\"";
constexpr std::size_t kHeadBytes = 512;
constexpr std::size_t kMaxArtifactBytes = 32u << 20;    // a plan or a suite
constexpr std::size_t kMaxCompanionBytes = 4u << 20;    // a trajectory, a patch, a verifier output
constexpr std::size_t kMaxInputsBytes = 1u << 20;       // <ledger>.inputs, <ledger>.live
constexpr unsigned kDiscoverEvery = 8;                  // refreshes: new ledgers, plans and suites every 2 s
constexpr std::int64_t kLiveStaleNs = 5'000'000'000;      // a live state not rewritten for 5 s is a killed run's

enum class FileKind { other, ledger, plan, suite };

// What a file is, from its first bytes; only a regular file that is not a link is looked at.
FileKind kind_of(const std::string& path) {
  store::FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return FileKind::other;
  char head[kHeadBytes];
  const ssize_t n = ::pread(fd.get(), head, sizeof head, 0);
  if (n <= 0) return FileKind::other;
  const std::string_view text(head, static_cast<std::size_t>(n));
  if (text.find(kLedgerType) != std::string_view::npos) return FileKind::ledger;
  if (text.find(kPlanType) != std::string_view::npos) return FileKind::plan;
  if (text.find(kSuiteType) != std::string_view::npos) return FileKind::suite;
  return FileKind::other;
}

// A sealed plan or suite as `strata run` would accept it (shape and seal verified), or nullopt.
std::optional<Json> sealed_artifact(const std::string& path, model::ArtifactKind kind) {
  const store::UntrustedFile file = store::read_untrusted_file(path, kMaxArtifactBytes);
  if (!file.text) return std::nullopt;
  try {
    return model::parse_artifact(kind, model::parse_json(*file.text));
  } catch (const Error&) {
    return std::nullopt;
  }
}

bool is_real_directory(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The entries of a directory that are regular files or directories, never a link; sorted.
std::vector<std::string> listed(const std::string& directory) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (entry.is_symlink(error)) continue;
    names.push_back(entry.path().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size()) {
      unsigned value = 0;
      const auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
      if (ec != std::errc() || end != text.data() + i + 3) return {};
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::optional<std::size_t> number_of(const std::string& text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

ViewResponse json_response(int status, const Json& body) { return {status, "application/json", body.dump(), false}; }
ViewResponse problem(int status, const std::string& message) { return json_response(status, Json{{"error", message}}); }

// The segments of a path ("/api/studies/3/observations" -> api, studies, 3, observations).
std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 1;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// A file's modification time (ns), 0 when it is not there.
std::int64_t modified_ns(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

// What a run of this ledger is doing now (<ledger>.live), or null when none is: the file is
// missing, not rewritten for 5 s, not a live state, or its pid names no process (a killed run's).
Json live_state_of(const std::string& ledger_path) {
  const std::string path = live_state_path_for(ledger_path);
  const std::int64_t modified = modified_ns(path);
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  if (modified == 0 || static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec - modified > kLiveStaleNs) return nullptr;
  const store::UntrustedFile file = store::read_untrusted_file(path, kMaxInputsBytes);
  if (!file.text) return nullptr;
  try {
    Json state = model::parse_json(*file.text);
    if (!state.is_object() || state.value("format", std::string()) != "strata-run-live-v1" || !state["pid"].is_number()) return nullptr;
    const double pid = state["pid"].get<double>();
    if (pid < 1 || pid > 4194304 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)) return nullptr;
    return state;
  } catch (const Error&) {
    return nullptr;
  }
}

// A study's observations as one verified source: the ledger read an observation at a time when the
// journal adds nothing to it (a finished study of any size in about 50 MiB), else the ledger and
// the journal merged in memory (a study in progress). Throws strata::Error.
std::unique_ptr<store::LedgerSource> observations_of(const ObservationTable& table) {
  if (!table.journal_adds())
    if (auto streamed = store::LedgerSource::open_streamed(table.ledger_path())) return streamed;
  store::LedgerState state = store::read_ledger_state(table.ledger_path());
  const std::string version = state.ledger.value("ledgerVersion", std::string("v1"));
  std::vector<Json> observations = store::take_merged_observations(state);
  if (observations.empty()) throw Error("no observation recorded yet");
  return std::make_unique<store::LedgerSource>(model::seal_checked_ledger(version, std::move(observations)));
}

}  // namespace

std::map<std::string, std::string> query_members(const std::string& query) {
  std::map<std::string, std::string> members;
  std::size_t start = 0;
  while (start <= query.size()) {
    const std::size_t end = std::min(query.find('&', start), query.size());
    const std::string_view part = std::string_view(query).substr(start, end - start);
    const std::size_t eq = part.find('=');
    if (!part.empty()) members[decoded(part.substr(0, eq))] = eq == std::string_view::npos ? "" : decoded(part.substr(eq + 1));
    start = end + 1;
  }
  return members;
}

ViewApp::ViewApp(std::vector<std::string> paths) : paths_(std::move(paths)) {
  for (const auto& path : paths_) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) throw Error("no such file or directory", path);
    if (S_ISLNK(st.st_mode)) throw Error("a symbolic link: name the file or directory it points to", path);
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) throw Error("neither a ledger nor a directory", path);
    if (S_ISREG(st.st_mode) && kind_of(path) != FileKind::ledger) throw Error("not a ledger (a controlled-study-observation-ledger)", path);
  }
  discover();
}

void ViewApp::discover() {
  std::vector<std::string> ledgers;
  const auto look_at = [&](const std::string& file) {
    if (file.ends_with(".json.journal")) {  // a first run's journal, before its ledger exists
      const std::string ledger = file.substr(0, file.size() - std::string(".journal").size());
      struct stat st {};
      if (::lstat(ledger.c_str(), &st) != 0) ledgers.push_back(ledger);
      return;
    }
    if (!file.ends_with(".json") || file.ends_with(".trajectory.json") || file.ends_with(".verifier.json")) return;
    // A file looked at before and unchanged since is what it was (a trajectory directory can hold
    // 100,000 files: each is opened once, not at every look).
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    const std::pair<std::int64_t, std::int64_t> stamp{st.st_size, static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
    if (const auto seen = examined_.find(file); seen != examined_.end() && seen->second == stamp) return;
    examined_[file] = stamp;
    const FileKind kind = kind_of(file);
    switch (kind) {
      case FileKind::ledger: ledgers.push_back(file); break;
      case FileKind::plan:
      case FileKind::suite: {
        auto artifact = sealed_artifact(file, kind == FileKind::plan ? model::ArtifactKind::run_plan : model::ArtifactKind::task_suite);
        if (!artifact) break;
        auto& into = kind == FileKind::plan ? plans_ : suites_;
        const bool known = std::any_of(into.begin(), into.end(), [&](const Json& a) { return a["contentHash"] == (*artifact)["contentHash"]; });
        if (!known) into.push_back(std::move(*artifact));
        break;
      }
      case FileKind::other: break;
    }
  };
  for (const auto& path : paths_) {
    if (!is_real_directory(path)) {
      look_at(path);
      continue;
    }
    for (const auto& entry : listed(path)) {  // the directory and its subdirectories, one level
      if (is_real_directory(entry)) {
        for (const auto& inner : listed(entry))
          if (!is_real_directory(inner)) look_at(inner);
      } else {
        look_at(entry);
      }
    }
  }
  for (const auto& ledger : ledgers) {
    if (study_of_.count(ledger) > 0) continue;
    study_of_[ledger] = studies_.size();
    Study study;
    study.table = std::make_unique<ObservationTable>(ledger);
    study.table->refresh();
    studies_.push_back(std::move(study));
  }
}

std::string ViewApp::refresh() {
  const std::size_t known = studies_.size();
  if (++refreshes_ % kDiscoverEvery == 0) discover();
  Json changed = Json::array();
  for (std::size_t id = 0; id < studies_.size(); ++id) {
    if (id >= known) {
      changed.push_back(Json{{"id", id}, {"new", true}, {"study", study_json(id)}});
      continue;
    }
    const auto added = studies_[id].table->refresh();
    const std::int64_t live_stamp = modified_ns(live_state_path_for(studies_[id].table->ledger_path()));
    const bool live_changed = live_stamp != studies_[id].live_stamp;
    studies_[id].live_stamp = live_stamp;
    if (added && *added == 0 && !live_changed) continue;
    Json summary = studies_[id].table->summary();
    Json progress = run_progress(studies_[id], summary);
    Json change{{"id", id}, {"summary", std::move(summary)}, {"progress", std::move(progress)},
                {"live", live_state_of(studies_[id].table->ledger_path())}};
    if (added) {
      change["added"] = *added;
      Json newest = Json::array();
      const ObservationTable& table = *studies_[id].table;
      for (std::size_t i = table.size() - std::min<std::size_t>(*added, 20); i < table.size(); ++i) newest.push_back(table.row_json(i));
      change["newest"] = std::move(newest);
    } else {
      change["reset"] = true;
    }
    changed.push_back(std::move(change));
  }
  return changed.empty() ? std::string() : Json{{"studies", changed}}.dump();
}

// Each run's recorded executions against its plan's selection. The plan is the one
// <ledger>.inputs names by hash, else the one with the run's id; its suite the one it names.
Json ViewApp::run_progress(const Study& study, const Json& summary) const {
  Json recorded_inputs;
  const store::UntrustedFile inputs = store::read_untrusted_file(store::run_inputs_path_for(study.table->ledger_path()), kMaxInputsBytes);
  if (inputs.text) {
    try {
      recorded_inputs = model::parse_json(*inputs.text);
    } catch (const Error&) {
    }
  }
  const Json no_runs = Json::object();
  const Json& input_runs = recorded_inputs.is_object() && recorded_inputs.contains("runs") && recorded_inputs["runs"].is_object()
                               ? recorded_inputs["runs"] : no_runs;
  std::map<std::string, Json> by_run;
  for (const auto& [run_id, count] : summary["runs"].items()) by_run[run_id] = count;
  for (const auto& [run_id, run] : input_runs.items()) by_run.try_emplace(run_id, 0);
  Json runs = Json::array();
  for (const auto& [run_id, recorded] : by_run) {
    Json entry{{"runId", run_id}, {"recorded", recorded}, {"planned", nullptr}};
    const Json named = input_runs.contains(run_id) && input_runs[run_id].is_object() ? input_runs[run_id].value("planHash", Json(nullptr)) : Json(nullptr);
    const auto plan = std::find_if(plans_.begin(), plans_.end(), [&](const Json& p) {
      return named.is_string() ? p["contentHash"] == named : p.value("runId", Json(nullptr)) == Json(run_id);
    });
    if (plan != plans_.end()) {
      entry["planHash"] = (*plan)["contentHash"];
      entry["taskSuiteHash"] = plan->value("taskSuiteHash", Json(nullptr));
      const auto suite = std::find_if(suites_.begin(), suites_.end(), [&](const Json& x) { return x["contentHash"] == entry["taskSuiteHash"]; });
      if (suite != suites_.end() && plan->contains("sampling")) {
        const std::string key = (*plan)["contentHash"].get<std::string>();
        auto cached = planned_.find(key);
        if (cached == planned_.end()) {
          Json count = nullptr;
          try {
            count = model::select_executions(*suite, (*plan)["sampling"]).size();
          } catch (const Error&) {
          }
          cached = planned_.emplace(key, count).first;
        }
        entry["planned"] = cached->second;
      }
    }
    runs.push_back(std::move(entry));
  }
  return runs;
}

Json ViewApp::study_json(std::size_t id) const {
  const Study& study = studies_[id];
  const std::string& ledger = study.table->ledger_path();
  const Json summary = study.table->summary();
  return Json{{"id", id},
              {"ledger", ledger},
              {"name", fs::path(ledger).filename().string()},
              {"summary", summary},
              {"progress", run_progress(study, summary)},
              {"live", live_state_of(ledger)}};
}

Json ViewApp::companions(const Study& study, const std::string& execution_key) const {
  const std::string stem = model::execution_file_stem(execution_key);
  Json found = Json::object();
  const auto read_into = [&](const std::string& member, const std::string& path, bool as_json) {
    if (found.contains(member)) return;
    const store::UntrustedFile file = store::read_untrusted_file(path, kMaxCompanionBytes);
    if (!file.text) return;
    if (!as_json) {
      found[member] = Json{{"path", path}, {"text", model::sanitize_utf8(*file.text)}};  // a patch is bytes
      return;
    }
    try {
      found[member] = Json{{"path", path}, {"value", model::parse_json(*file.text)}};
    } catch (const Error& e) {
      found[member] = Json{{"path", path}, {"error", e.what()}};
    }
  };
  std::vector<std::string> directories;
  for (const auto& path : paths_) {
    if (!is_real_directory(path)) continue;
    directories.push_back(path);
    for (const auto& entry : listed(path))
      if (is_real_directory(entry)) directories.push_back(entry);
  }
  for (const auto& directory : directories) {
    read_into("trajectory", directory + "/" + stem + ".trajectory.json", true);
    read_into("judgeTrajectory", directory + "/" + stem + ".judge.trajectory.json", true);
    read_into("patch", directory + "/" + stem + ".patch", false);
    read_into("verifierOutput", directory + "/" + stem + ".verifier.json", true);
  }
  const std::string verifier_directory = study.table->ledger_path() + ".verifier";
  if (is_real_directory(verifier_directory)) read_into("verifierOutput", verifier_directory + "/" + stem + ".json", true);
  return found;
}

ViewResponse ViewApp::metrics(Study& study) {
  const std::size_t rows = study.table->size();
  if (rows != study.metrics_rows) {
    try {
      const auto source = observations_of(*study.table);
      app::MetricsRequest request;
      request.ledger_path = study.table->ledger_path();
      study.metrics_json = Json{{"metrics", app::metrics_report(*source, request)}}.dump();
    } catch (const Error& e) {
      study.metrics_json = Json{{"error", e.what()}}.dump();
    }
    study.metrics_rows = rows;
  }
  return {200, "application/json", study.metrics_json, false};
}

ViewResponse ViewApp::report(Study& study) {
  try {
    const auto source = observations_of(*study.table);
    app::ReportRequest request;
    request.metrics.ledger_path = study.table->ledger_path();
    request.allow_missing_arms = true;
    request.strata_version = "view";
    return {200, "text/html; charset=utf-8", report::html_report(app::report_data(*source, request)), true};
  } catch (const Error& e) {
    return {200, "text/plain; charset=utf-8", std::string("No report yet: ") + e.what() + "\n", true};
  }
}

ViewResponse ViewApp::handle(const std::string& path, const std::string& query) {
  if (path == "/" || path == "/index.html") return {200, "text/html; charset=utf-8", view_page_html(), false};
  if (path == "/app.js") return {200, "text/javascript; charset=utf-8", view_page_script(), false};
  if (path == "/app.css") return {200, "text/css; charset=utf-8", view_page_style(), false};
  const std::vector<std::string> parts = segments(path);
  if (parts.size() < 2 || parts[0] != "api" || parts[1] != "studies") return problem(404, "no such page");
  if (parts.size() == 2) {
    Json list = Json::array();
    for (std::size_t id = 0; id < studies_.size(); ++id) list.push_back(study_json(id));
    return json_response(200, Json{{"studies", list}});
  }
  const auto id = number_of(parts[2]);
  if (!id || *id >= studies_.size()) return problem(404, "no such study");
  Study& study = studies_[*id];
  if (parts.size() == 3) return json_response(200, study_json(*id));
  if (parts.size() == 4 && parts[3] == "metrics") return metrics(study);
  if (parts.size() == 4 && parts[3] == "report") return report(study);
  if (parts[3] != "observations" || parts.size() > 5) return problem(404, "no such page");
  if (parts.size() == 5) {
    const auto index = number_of(parts[4]);
    if (!index || *index >= study.table->size()) return problem(404, "no such observation");
    std::optional<Json> observation = study.table->observation(*index);
    if (!observation) {  // the file changed under the row (a fold): read again, then once more
      study.table->refresh();
      if (*index < study.table->size()) observation = study.table->observation(*index);
    }
    if (!observation) return problem(409, "the observation moved; reload the table");
    Json row = study.table->row_json(*index);
    const std::string key = model::execution_key((*observation)["task"]);
    row["executionKey"] = key;
    return json_response(200, Json{{"row", std::move(row)}, {"observation", *observation}, {"files", companions(study, key)}});
  }
  const auto members = query_members(query);
  TableQuery q;
  const auto text = [&](const char* key) {
    const auto it = members.find(key);
    return it == members.end() ? std::string() : it->second;
  };
  q.arm = text("arm");
  q.run_id = text("run");
  q.claimed = text("claimed");
  q.adjudicated = text("adjudicated");
  q.status = text("status");
  q.error_code = text("error");
  q.verified = text("verified");
  if (!text("sort").empty()) q.sort = text("sort");
  q.descending = text("order") == "desc";
  for (const auto& [key, into] : {std::pair<const char*, std::size_t*>{"offset", &q.offset}, {"limit", &q.limit}}) {
    if (text(key).empty()) continue;
    const auto value = number_of(text(key));
    if (!value) return problem(400, std::string(key) + ": not a number");
    *into = *value;
  }
  return json_response(200, study.table->query(q));
}

}  // namespace strata::app
