// The one fuzz binary: every harness (fuzz_<name>.cpp) registers its entry point at start-up,
// and this binary fuzzes the one its file name selects. The build links it once and makes
// fuzz_<name> a symlink to it per target, so `fuzz/fuzz_json corpus/` fuzzes the JSON parser as
// a binary of its own would. Why one binary: the harnesses share their heavy headers, so
// compiling them as one unity batch and linking once costs a fraction of twelve compiles and
// twelve sanitizer links (docs/TESTING.md).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "fuzz_support.hpp"

namespace strata::fuzz {
namespace {

std::map<std::string, TargetEntry>& registered_targets() {
  static std::map<std::string, TargetEntry> targets;
  return targets;
}

TargetEntry selected_target = nullptr;

// The target a file name selects: "fuzz_json" (or a path ending in it) selects "json".
std::string target_of(const char* program) {
  const char* slash = std::strrchr(program, '/');
  std::string name = slash != nullptr ? slash + 1 : program;
  constexpr std::string_view kPrefix = "fuzz_";
  if (name.compare(0, kPrefix.size(), kPrefix) == 0) name.erase(0, kPrefix.size());
  return name;
}

}  // namespace

bool register_target(const char* name, TargetEntry entry) {
  registered_targets()[name] = entry;
  return true;
}

}  // namespace strata::fuzz

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** argv) {
  using namespace strata::fuzz;
  const std::string name = target_of((*argv)[0]);
  const auto found = registered_targets().find(name);
  if (found == registered_targets().end()) {
    std::string known;
    for (const auto& [target, entry] : registered_targets()) known += " fuzz_" + target;
    std::fprintf(stderr, "fuzz: no target '%s' (run the binary as one of:%s)\n", name.c_str(), known.c_str());
    std::exit(2);
  }
  selected_target = found->second;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return strata::fuzz::selected_target(data, size);
}
