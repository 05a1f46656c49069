#include "fixture.hpp"

#include "strata/error.hpp"
#include "strata/store/artifact_file.hpp"

namespace strata::test {

std::string fixture_path(const std::string& name) { return std::string(STRATA_FIXTURES) + "/" + name; }

model::Json fixture(const std::string& name) { return store::read_json_file(fixture_path(name)); }

std::string error_of(const std::function<void()>& operation) {
  try {
    operation();
  } catch (const Error& e) {
    return e.describe();
  }
  return "no error";
}

std::string message_of(const std::function<void()>& operation) {
  try {
    operation();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

model::Json payload_of(model::Json sealed) {
  sealed.erase("contentHash");
  sealed.erase("contentHashAlgo");
  return sealed;
}

}  // namespace strata::test
