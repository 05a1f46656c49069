#include "fuzz_support.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/model/study/provider_request.hpp"
#include "strata/model/study/sampling.hpp"

namespace strata::fuzz {
namespace {

using model::ArtifactKind;
using model::Json;

std::string read_source_file(const std::string& relative) {
  const std::string path = std::string(STRATA_SOURCE_DIR) + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz: cannot read %s\n", path.c_str());
    std::abort();
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Json sealed_example(ArtifactKind kind, const char* file) {
  try {
    return model::create_artifact(kind, model::parse_json(read_source_file(std::string("examples/study/") + file)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: cannot seal examples/study/%s: %s\n", file, e.what());
    std::abort();
  }
}

}  // namespace

void fail(const char* file, int line, const char* condition, const std::string& detail) {
  std::fprintf(stderr, "\n==FUZZ INVARIANT== %s:%d: %s\n  %s\n", file, line, condition, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

std::string excerpt(std::string_view text, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && out.size() < limit; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  if (text.size() > limit) out += "...";
  return out;
}

const ExampleStudy& example_study() {
  static const ExampleStudy study{
      sealed_example(ArtifactKind::run_plan, "run-plan.payload.json"),
      sealed_example(ArtifactKind::task_suite, "task-suite.payload.json"),
      sealed_example(ArtifactKind::provider_config, "provider-config.payload.json"),
      sealed_example(ArtifactKind::repository_config, "repository-config.payload.json"),
  };
  return study;
}

const ExampleExecution& example_execution() {
  static const ExampleExecution execution = [] {
    const ExampleStudy& study = example_study();
    const std::vector<Json> selection = model::select_executions(study.suite, study.plan["sampling"]);
    const Json& cell = selection.front();
    ExampleExecution e;
    e.task = model::find_task(study.suite, cell["taskId"].get<std::string>());
    e.provider = model::find_provider(study.providers, cell["modelId"].get<std::string>(),
                                      cell["scenarioId"].get<std::string>());
    if (e.task == nullptr || e.provider == nullptr) {
      std::fprintf(stderr, "fuzz: the example plan's first execution has no task or provider\n");
      std::abort();
    }
    e.recorded = model::recorded_task(cell, *e.task);
    e.request = model::compact_json(model::provider_request(e.recorded, *e.task));
    return e;
  }();
  return execution;
}

const Json& example_provider_response() {
  static const Json response = [] {
    const ExampleExecution& e = example_execution();
    Json evidence = Json::array();
    for (const auto& requirement : (*e.task)["evidenceRequirements"]) evidence.push_back(requirement["id"]);
    const double checks = static_cast<double>((*e.task)["acceptanceChecks"].size());
    return Json{{"taskOutcome", "success"},
                {"evidenceQuality", "high"},
                {"safetyOutcome", "safe"},
                {"evidenceIds", evidence},
                {"clarificationRequests", 0},
                {"reworkCount", 1},
                {"measurements",
                 {{"acceptanceChecksPassed", checks},
                  {"acceptanceChecksTotal", checks},
                  {"acceptanceChecksExecuted", checks},
                  {"searchHitRate", 0.25},
                  {"cachedInputTokens", 100}}},
                {"inputTokens", 400},
                {"outputTokens", 60},
                {"tokenMethod", "provider"},
                {"toolCalls", 3}};
  }();
  return response;
}

const Json& example_observation() {
  static const Json observation = [] {
    const ExampleStudy& study = example_study();
    const ExampleExecution& e = example_execution();
    model::ObservationInputs in{&study.plan, e.provider, e.recorded, e.request, std::nullopt,
                                "2026-01-02T03:04:05.678Z"};
    model::AttemptRecord attempt;
    attempt.status = "completed";
    attempt.exit_code = 0;
    attempt.duration_ms = 1234;
    attempt.stdout_text = model::compact_json(example_provider_response()) + "\n";
    attempt.stderr_hash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    return model::build_judged_observation(in, attempt, *e.task);
  }();
  return observation;
}

const Json& example_judge_response() {
  static const Json response = {{"outcome", "success"},
                                {"confidence", 0.87},
                                {"reasonCodes", Json::array({"evidence-complete"})},
                                {"inputTokens", 812},
                                {"outputTokens", 20},
                                {"tokenMethod", "provider"}};
  return response;
}

void write_file(const std::string& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  FUZZ_CHECK(out.good(), "cannot write " + path);
}

const std::string& scratch_directory() {
  static const std::string directory = [] {
    // scripts/fuzz.sh points STRATA_FUZZ_SCRATCH at its own run directory, so what a
    // crashed (aborted) harness leaves behind is removed with it.
    const char* configured = std::getenv("STRATA_FUZZ_SCRATCH");
    std::string base = configured != nullptr && *configured != '\0' ? configured : "/dev/shm";
    std::error_code ec;
    if (!std::filesystem::is_directory(base, ec) || ::access(base.c_str(), W_OK) != 0)
      base = std::filesystem::temp_directory_path().string();
    std::string pattern = base + "/strata-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("fuzz: mkdtemp");
      std::abort();
    }
    static std::string removed_at_exit;
    removed_at_exit = pattern;
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(removed_at_exit, ignored);
    });
    return pattern;
  }();
  return directory;
}

}  // namespace strata::fuzz
