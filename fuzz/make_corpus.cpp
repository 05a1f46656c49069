// Writes the generated part of the seed corpora (fuzz/corpus/<target>/gen-*): sealed
// artifacts of every kind from the example study and the doc-bridge fixtures, a provider
// and a judge answer for the example execution, journal lines, and project event logs as
// the writer itself leaves them. The hand-written seeds beside them come from the tests.
//
//   build-fuzz/fuzz/strata_fuzz_make_corpus <corpus dir> <doc-bridge fixtures dir>
//
// Run by hand when the formats change (scripts/fuzz.sh only reads the corpus).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "strata/model/adjudication/adjudication.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/event_log.hpp"

using namespace strata;
using model::Json;
namespace fs = std::filesystem;

namespace {

fs::path corpus;

void seed(const std::string& target, const std::string& name, const std::string& content) {
  fs::create_directories(corpus / target);
  std::ofstream out(corpus / target / ("gen-" + name), std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) {
    std::fprintf(stderr, "cannot write %s/%s\n", target.c_str(), name.c_str());
    std::exit(1);
  }
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string with_kind(char kind, const std::string& text) { return std::string(1, kind) + text; }

void event_log_seeds() {
  const fs::path root = fs::temp_directory_path() / ("strata-fuzz-corpus-" + std::to_string(::getpid()));
  const std::string project = (root / "project").string(), specs = (root / "specs").string();
  fs::create_directories(project);
  fs::create_directories(specs);
  ::setenv("CM_WORKFLOW_LOG_HOME", (root / "logs").c_str(), 1);
  const std::string log = specs + "/" + std::string(store::kProjectLogName);
  const std::string pointer = specs + "/" + std::string(store::kPointerName);
  const std::string identity =
      R"("call_id":"call-0001","stage":"build","role":"implementer","adapter":"openai-compatible","requested_model":"gpt-test","source":"api","purpose":"cm-prd:build")";
  const auto write = [&](const std::string& event, const char* phase, const std::string& data, const char* at) {
    store::LogEventArgs a;
    a.workflow = "cm-prd";
    a.event = event;
    a.runtime = "codex";
    a.detail = event + " seed";
    if (phase) a.phase = phase;
    a.project_root = project;
    a.specs_dir = specs;
    a.run_id = "fuzz-run-0001";
    a.at = at;
    a.data_json = data;
    const auto outcome = store::log_event(a);
    if (outcome.exit_code != 0) {
      std::fprintf(stderr, "log_event %s failed: %s\n", event.c_str(),
                   outcome.stderr_lines.empty() ? "?" : outcome.stderr_lines.front().c_str());
      std::exit(1);
    }
  };
  write("run_start", "start", "{}", "2026-01-02T03:00:00+00:00");
  write("model_call", "claimed", "{" + identity + "}", "2026-01-02T03:01:00+00:00");
  const std::string claimed = read_file(log);
  // selector byte: 0 claim, 1 managed usage, 2 manual usage, 3 run_start, 4 done; +8 explicit --run-id
  seed("event_log_writer", "usage-after-claim", std::string("\x01") + claimed);
  seed("event_log_writer", "usage-after-claim-run-id", std::string("\x09") + claimed);
  seed("event_log_writer", "claim-again", std::string("\x00", 1) + claimed);
  seed("event_log_writer", "done-with-pointer", std::string("\x04") + claimed + std::string("\0", 1) + read_file(pointer));
  write("model_usage", "complete",
        "{" + identity + R"(,"usage_state":"observed","input_tokens":10,"output_tokens":5,"duration_ms":7,"outcome":"success"})",
        "2026-01-02T03:02:00+00:00");
  const std::string completed = read_file(log);
  seed("event_log_writer", "claim-after-usage", std::string("\x00", 1) + completed);
  seed("event_log_writer", "usage-again", std::string("\x01") + completed);
  write("done", nullptr, "{}", "2026-01-02T03:03:00+00:00");
  seed("event_log_writer", "run-start-after-done", std::string("\x03") + read_file(log) + std::string("\0", 1) + read_file(pointer));
  seed("event_log_writer", "empty-log", std::string("\x02"));

  // The global mirror of the same run: index + run file, as the usage report reads them.
  std::string mirror = read_file(root / "logs" / "index.jsonl");
  for (const auto& month : fs::directory_iterator(root / "logs" / "runs"))
    for (const auto& run : fs::directory_iterator(month.path())) mirror += read_file(run.path());
  seed("event_log_report", "writer-mirror.jsonl", mirror);
  fs::remove_all(root);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <corpus dir> <doc-bridge fixtures dir>\n", argv[0]);
    return 2;
  }
  corpus = argv[1];
  const fs::path fixtures = argv[2];
  const fuzz::ExampleStudy& study = fuzz::example_study();
  const Json& observation = fuzz::example_observation();

  model::JudgeRecord judge{"completed", model::compact_json(fuzz::example_judge_response()) + "\n", 2500};
  const Json adjudicated = model::adjudicated_observation(observation, study.providers["adjudicator"],
                                                          study.providers["contentHash"].get<std::string>(), judge);
  const Json ledger = model::seal_checked_ledger("v1", {observation, adjudicated});

  // artifact: kind byte (0 provider config .. 6 protocol, 7 verify) + the file.
  seed("artifact", "provider-config", with_kind(0, model::pretty_json(study.providers) + "\n"));
  seed("artifact", "repository-config", with_kind(1, model::pretty_json(study.repositories) + "\n"));
  seed("artifact", "task-suite-example", with_kind(2, model::pretty_json(study.suite) + "\n"));
  seed("artifact", "task-suite-v1", with_kind(2, read_file(fixtures / "task-suite-v1.json")));
  seed("artifact", "run-plan-example", with_kind(3, model::compact_json(study.plan)));
  seed("artifact", "run-plan-v1", with_kind(3, read_file(fixtures / "run-plan-v1.json")));
  seed("artifact", "ab-baseline-plan-v1", with_kind(3, read_file(fixtures / "ab-baseline-plan-v1.json")));
  seed("artifact", "observation", with_kind(4, model::pretty_json(adjudicated) + "\n"));
  seed("artifact", "ledger", with_kind(5, model::pretty_json(ledger) + "\n"));
  seed("artifact", "protocol-v1", with_kind(6, read_file(fixtures / "protocol-v1.json")));
  seed("artifact", "verify-ab-baseline-result-v1", with_kind(7, read_file(fixtures / "ab-baseline-result-v1.json")));
  seed("artifact", "verify-ledger", with_kind(7, model::compact_json(ledger)));

  seed("provider_response", "example-answer", model::compact_json(fuzz::example_provider_response()) + "\n");
  seed("adjudicator_response", "example-judge", model::compact_json(fuzz::example_judge_response()) + "\n");

  // ledger_journal: complete lines, a torn last line, a line whose hash was tampered with.
  const std::string line1 = model::compact_json(observation) + "\n", line2 = model::compact_json(adjudicated) + "\n";
  seed("ledger_journal", "two-lines", line1 + line2);
  seed("ledger_journal", "torn-tail", line1 + line2.substr(0, line2.size() / 3));
  std::string tampered = line1;
  tampered.replace(tampered.find("\"contentHash\":\"") + 15, 1, tampered[tampered.find("\"contentHash\":\"") + 15] == 'a' ? "b" : "a");
  seed("ledger_journal", "tampered-then-valid", tampered + line2);

  event_log_seeds();
  std::puts("corpus written");
  return 0;
}
