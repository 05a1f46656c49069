#include "fixture.hpp"

#include "strata/store/artifact_file.hpp"

namespace strata::test {

std::string fixture_path(const std::string& name) { return std::string(STRATA_FIXTURES) + "/" + name; }

model::Json fixture(const std::string& name) { return store::read_json_file(fixture_path(name)); }

model::Json payload_of(model::Json sealed) {
  sealed.erase("contentHash");
  sealed.erase("contentHashAlgo");
  return sealed;
}

}  // namespace strata::test
