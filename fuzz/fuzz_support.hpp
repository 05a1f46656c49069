#pragma once
// Shared pieces of the fuzz targets: an invariant check that aborts (libFuzzer then saves
// the input as a crash reproducer), and the example study sealed once at start-up, which
// gives the response harnesses a real plan, suite, provider config and observation.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::fuzz {

// The harnesses share one binary (fuzz_main.cpp): each registers its entry point (what
// LLVMFuzzerTestOneInput would be) under its name at start-up, and the binary runs the one its
// file name, fuzz_<name>, selects.
using TargetEntry = int (*)(const std::uint8_t* data, std::size_t size);
bool register_target(const char* name, TargetEntry entry);

[[noreturn]] void fail(const char* file, int line, const char* condition, const std::string& detail);

// An invariant of the code under test: prints what broke and aborts.
#define FUZZ_CHECK(condition, detail)                                                  \
  do {                                                                                 \
    if (!(condition)) ::strata::fuzz::fail(__FILE__, __LINE__, #condition, (detail)); \
  } while (0)

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A short, printable excerpt of a value or text for failure messages.
std::string excerpt(std::string_view text, std::size_t limit = 400);

// The example study (examples/study/*.payload.json), sealed with create_artifact.
struct ExampleStudy {
  model::Json plan, suite, providers, repositories;
};
const ExampleStudy& example_study();

// What `strata run` sees for the first selected execution of the example plan.
struct ExampleExecution {
  model::Json recorded;                 // recorded task (§1.5 + difficulty)
  const model::Json* task = nullptr;    // in example_study().suite
  const model::Json* provider = nullptr;
  std::string request;                  // the provider's stdin, compact JSON
};
const ExampleExecution& example_execution();

// What strata-example-provider answers for that execution (every evidence id, all checks
// passed), and a sealed observation built from it (what `strata adjudicate` hands to its judge).
const model::Json& example_provider_response();
const model::Json& example_observation();

// What strata-example-provider --judge answers.
const model::Json& example_judge_response();

// Replaces the file at `path` with `content` (the harnesses whose code under test reads files).
void write_file(const std::string& path, std::string_view content);

// A private scratch directory for the harnesses that must go through files (tmpfs when
// available, so the fsyncs of the code under test cost nothing). Removed at exit.
const std::string& scratch_directory();

}  // namespace strata::fuzz
