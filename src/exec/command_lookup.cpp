#include "strata/exec/command_lookup.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "strata/error.hpp"

namespace strata::exec {
namespace {

bool is_executable_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string resolve_command(const std::string& command, const std::string& base_directory,
                            const std::string& path_variable) {
  namespace fs = std::filesystem;
  if (command.find('/') != std::string::npos) {
    fs::path resolved = fs::path(command).is_absolute() ? fs::path(command)
                                                        : fs::absolute(base_directory) / command;
    std::string text = resolved.lexically_normal().string();
    if (text.size() > 1 && text.back() == '/') text.pop_back();
    if (!is_executable_file(text)) throw Error("Provider CLI command is not executable at " + text + ".");
    return text;
  }
  std::size_t start = 0;
  while (start <= path_variable.size()) {
    std::size_t end = path_variable.find(':', start);
    if (end == std::string::npos) end = path_variable.size();
    const std::string entry = path_variable.substr(start, end - start);
    if (!entry.empty()) {
      const std::string candidate = (fs::path(entry) / command).string();
      if (is_executable_file(candidate)) return candidate;
    }
    start = end + 1;
  }
  throw Error("Provider CLI command " + command + " was not found on PATH.");
}

}  // namespace strata::exec
