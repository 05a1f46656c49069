#pragma once
// The provider request of spec §1.9: what a provider process reads on stdin.
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::model {

// Appendix A, V-final: the response-contract text sent in every request.
extern const std::string_view kProviderResponseContract;

// The recorded task of an execution: the selector's seven fields plus the task's difficulty.
Json recorded_task(const Json& cell, const Json& task);

// The request object, members in the order the reference writes them.
Json provider_request(const Json& recorded, const Json& task);

// The first task of the suite with this id, or nullptr.
const Json* find_task(const Json& suite, const std::string& task_id);

// The first provider entry serving (model, scenario) (§1.1 lookup rule), or nullptr.
const Json* find_provider(const Json& provider_config, const std::string& model_id, const std::string& scenario_id);

}  // namespace strata::model
