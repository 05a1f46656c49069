#pragma once
// The execution matrix, its deterministic order and the two sampling strategies (§3.1).
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::model {

// key(x): sha256-normalized-v1 of x with an extra "seed" member.
std::string ordering_key(const Json& object, const std::string& seed);

// The full matrix of a (validated) task suite in hash order: every task x scenario x
// model x replicate cell with its variant. Cells are Json objects in §1.5 order.
std::vector<Json> full_matrix(const Json& suite);

// The executions a plan's sampling selects (§3.1 steps 1-7). Throws strata::Error.
std::vector<Json> select_executions(const Json& suite, const Json& sampling);

}  // namespace strata::model
