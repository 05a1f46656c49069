#include <catch2/catch.hpp>

#include "strata/app/study/run_inputs.hpp"

using strata::app::changed_inputs;
using strata::model::Json;

namespace {

Json inputs(const std::string& providers, const Json& programs) {
  return {{"planHash", "p1"}, {"taskSuiteHash", "s1"}, {"providerConfigHash", providers},
          {"repositoryConfigHash", "r1"}, {"programs", programs}};
}

Json program(const std::string& path, const std::string& sha) {
  return {{"path", path}, {"size", 10}, {"modifiedNs", "1"}, {"sha256", sha}};
}

}  // namespace

TEST_CASE("changed inputs: one line per change, none when equal", "[inputs]") {
  const Json before = inputs("c1", Json::array({program("/bin/a", "aa"), program("/bin/b", "bb")}));
  CHECK(changed_inputs("run-1", before, before).empty());

  // A rebuilt program with the same bytes (other size field, other time) is not a change.
  Json touched = before;
  touched["programs"][0]["modifiedNs"] = "2";
  CHECK(changed_inputs("run-1", before, touched).empty());

  const Json after = inputs("c2", Json::array({program("/bin/a", "a2"), program("/bin/c", "cc")}));
  CHECK(changed_inputs("run-1", before, after) ==
        std::vector<std::string>{"provider config changed since run run-1 started: c1 -> c2",
                                 "provider program changed: /bin/a (sha256 aa -> a2)",
                                 "provider program added since run run-1 started: /bin/c"});
}

TEST_CASE("changed inputs: a record without a member names it as not recorded", "[inputs]") {
  Json before = inputs("c1", Json::array());
  before.erase("repositoryConfigHash");
  CHECK(changed_inputs("r", before, inputs("c1", Json::array())) ==
        std::vector<std::string>{"repository config changed since run r started: (not recorded) -> r1"});
}
