#include "strata/model/adjudication/adjudicated_result.hpp"

#include "strata/model/json/json_access.hpp"

namespace strata::model {
namespace {

bool decided(const Json& adjudication) {
  return adjudication.value("status", "") != "pending" && adjudication.contains("outcome");
}

}  // namespace

std::string adjudicated_result(const Json& observation) {
  const Json& adjudication = observation["adjudication"];
  return decided(adjudication) ? str(adjudication["outcome"]) : "pending";
}

std::string result_source(const Json& observation) {
  const Json& adjudication = observation["adjudication"];
  if (!decided(adjudication)) return "pending";
  const std::string method = adjudication.value("method", "");
  if (method == "independent-rubric-v1") return "independent";
  if (method == "deterministic-rubric-v1") return "deterministic";
  return method;
}

}  // namespace strata::model
