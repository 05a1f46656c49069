#pragma once
// One error type for the whole program: a stable message (the spec's text where it
// defines one), an optional location (file, JSON path or line:column) and an exit class.
#include <stdexcept>
#include <string>

namespace strata {

enum class ExitCode : int {
  ok = 0,
  usage = 1,    // unknown command, missing positional: usage text on stderr
  failure = 2,  // any error after argument parsing: one line on stderr
};

class Error : public std::runtime_error {
 public:
  explicit Error(std::string message, std::string location = {}, ExitCode code = ExitCode::failure)
      : std::runtime_error(std::move(message)), location_(std::move(location)), code_(code) {}

  // Where the problem is: "$.tasks[3].id", "12:7", or empty when the message says it all.
  const std::string& location() const noexcept { return location_; }
  ExitCode code() const noexcept { return code_; }

  // "<location>: <message>" or just the message.
  std::string describe() const {
    return location_.empty() ? std::string(what()) : location_ + ": " + what();
  }

 private:
  std::string location_;
  ExitCode code_;
};

}  // namespace strata
