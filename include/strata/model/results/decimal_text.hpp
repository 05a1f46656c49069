#pragma once
// A number as a person reads it in a sentence or a table: at most so many decimals, trailing
// zeros and a trailing point dropped, no "-0" (the findings, the plan's power, the report).
#include <string>

namespace strata::model {

// 0.25 with 3 -> "0.25"; 17.0 with 1 -> "17"; -0.0001 with 2 -> "0".
std::string decimal_text(double value, int decimals);

}  // namespace strata::model
