// strata verify <file>...: detect each file's kind from "type", verify its content hash
// and, for a ledger, every nested observation hash. Exit 2 when any file fails.
#include <memory>
#include <optional>
#include <utility>

#include "command.hpp"
#include "strata/model/study/verification.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/ledger_journal.hpp"
#include "strata/store/streamed_verification.hpp"

namespace strata::cli {
namespace {

using model::Json;

struct VerifyOptions {
  std::vector<std::string> files;
  OutputFormat format;
};

struct FileReport {
  std::string path;
  model::Verification verification;
  std::string error;  // set when the file is not a valid artifact at all
  // A ledger's unfolded journal (<ledger>.journal): verified entries, and what a torn
  // write left behind (dropped on resume; not a failure of recorded data).
  std::size_t journal_entries = 0;
  std::optional<std::string> journal_dropped;

  bool ok() const { return error.empty() && verification.mismatches.empty(); }
};

FileReport verify_file(const std::string& path) {
  FileReport report{path, {}, {}};
  try {
    // A ledger is verified an observation at a time; anything the streamed pass cannot decide
    // (another kind of artifact, an unusual layout, an invalid file) is verified whole, which
    // gives the same report or names the problem.
    if (auto streamed = store::verify_ledger_streamed(path)) {
      report.verification = std::move(*streamed);
    } else {
      report.verification = model::verify_document(store::read_json_file(path));
    }
    if (report.verification.type == model::artifact_spec(model::ArtifactKind::ledger).type) {
      const store::JournalContents journal = store::read_journal(store::journal_path_for(path));
      report.journal_entries = journal.observations.size();
      report.journal_dropped = journal.dropped;
    }
  } catch (const Error& e) {
    report.error = at_file(path, e).describe();
  }
  return report;
}

Json report_json(const FileReport& r) {
  Json out = {{"path", r.path}, {"ok", r.ok()}};
  if (!r.error.empty()) {
    out["error"] = r.error;
    return out;
  }
  out["type"] = r.verification.type;
  out["knownType"] = r.verification.known_kind;
  out["contentHash"] = r.verification.content_hash;
  Json mismatches = Json::array();
  for (const auto& m : r.verification.mismatches)
    mismatches.push_back({{"path", m.path}, {"stored", m.stored}, {"computed", m.computed}});
  out["mismatches"] = std::move(mismatches);
  if (r.journal_entries > 0 || r.journal_dropped) {
    out["journal"] = {{"observations", static_cast<double>(r.journal_entries)}};
    if (r.journal_dropped) out["journal"]["dropped"] = *r.journal_dropped;
  }
  return out;
}

std::vector<std::string> report_lines(const FileReport& r) {
  if (!r.error.empty()) return {"FAIL " + r.error};
  const auto& v = r.verification;
  const std::string kind = v.type + (v.known_kind ? "" : ", hash only");
  std::vector<std::string> lines;
  if (v.mismatches.empty()) {
    lines.push_back("OK " + r.path + " (" + kind + ") " + v.content_hash);
  } else {
    lines.push_back("MISMATCH " + r.path + " (" + kind + ")");
  }
  if (r.journal_entries > 0) lines.push_back("  journal: " + std::to_string(r.journal_entries) + " verified observation(s) not yet folded");
  if (r.journal_dropped) lines.push_back("  journal: dropped " + *r.journal_dropped);
  if (v.mismatches.empty()) return lines;
  for (const auto& m : v.mismatches)
    lines.push_back("  " + m.path + ": stored " + m.stored + ", computed " + m.computed);
  return lines;
}

}  // namespace

void add_verify_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<VerifyOptions>();
  auto* sub = app.add_subcommand("verify", "Verify the content hash of sealed artifacts (and of every ledger observation)");
  sub->footer("Exit status: 0 when every file verifies, 2 when any file fails.");
  sub->add_option("files", options->files, "Sealed artifacts (JSON)")->required();
  add_format_flags(*sub, options->format);
  sub->callback([&action, options] {
    action = [options] {
      bool all_ok = true;
      Json files = Json::array();
      std::vector<std::string> lines;
      for (const auto& path : options->files) {
        const FileReport report = verify_file(path);
        all_ok = all_ok && report.ok();
        files.push_back(report_json(report));
        for (auto& line : report_lines(report)) lines.push_back(std::move(line));
      }
      if (options->format.text) {
        print_lines(lines);
      } else {
        print_json(Json{{"ok", all_ok}, {"files", std::move(files)}});
      }
      return all_ok ? 0 : static_cast<int>(ExitCode::failure);
    };
  });
}

}  // namespace strata::cli
