#pragma once
// Shapes of the unsealed process payloads (spec §1.9, §4.2, §4.3).
#include "strata/model/json/shape.hpp"

namespace strata::model {

const Shape& provider_request_shape();      // stdin of a provider process (strict)
const Shape& provider_response_shape();     // stdout of a provider (unknown keys dropped)
const Shape& adjudicator_request_shape();   // stdin of the adjudicator (strict)
const Shape& adjudicator_response_shape();  // stdout of the adjudicator (strict)

}  // namespace strata::model
