#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "strata/error.hpp"
#include "strata/exec/command_lookup.hpp"

namespace fs = std::filesystem;
using strata::exec::resolve_command;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/strata-lookup-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write_script(const fs::path& file, bool executable) {
  std::ofstream(file) << "#!/bin/sh\nexit 0\n";
  ::chmod(file.c_str(), executable ? 0755 : 0644);
}

std::string error_of(const std::string& command, const std::string& base, const std::string& path) {
  try {
    return "resolved " + resolve_command(command, base, path);
  } catch (const strata::Error& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("spec 6 case 32: command validation", "[exec]") {
  TempDir root;
  CHECK(error_of("missing-study-provider-cli", root.path, "/usr/bin:/bin") ==
        "Provider CLI command missing-study-provider-cli was not found on PATH.");
  CHECK(error_of("./nope", root.path, "/usr/bin") ==
        "Provider CLI command is not executable at " + (root.path / "nope").string() + ".");

  write_script(root.path / "provider", true);
  write_script(root.path / "plain", false);
  fs::create_directory(root.path / "dir");
  CHECK(error_of("./provider", root.path, "") == "resolved " + (root.path / "provider").string());
  CHECK(error_of("sub/../provider", root.path, "") == "resolved " + (root.path / "provider").string());
  CHECK(error_of((root.path / "provider").string(), "/", "") == "resolved " + (root.path / "provider").string());
  // 0644: not executable, even for root (root still needs one x bit).
  CHECK(error_of("./plain", root.path, "").find("is not executable at") != std::string::npos);
  CHECK(error_of("./dir", root.path, "") == "Provider CLI command is not executable at " + (root.path / "dir").string() + ".");
  // PATH search skips empty entries and non-executables, and finds the first match.
  CHECK(error_of("provider", root.path, "::" + root.path.string()) == "resolved " + (root.path / "provider").string());
  CHECK(error_of("plain", root.path, root.path.string()) == "Provider CLI command plain was not found on PATH.");
  CHECK(error_of("sh", root.path, "/nonexistent:/bin:/usr/bin") == "resolved /bin/sh");
}
