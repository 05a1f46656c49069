#pragma once
// ECMAScript Number::toString for finite doubles (what JSON.stringify prints).
#include <string>

namespace strata::model {

// Appends the ECMAScript text of a finite double: shortest round-trip digits,
// -0 as "0", plain notation for 1e-7 < |v| < 1e21, otherwise "1e+21" / "5e-7".
void append_ecmascript_number(std::string& out, double value);

std::string ecmascript_number(double value);

// ECMAScript Number.prototype.toFixed(digits) converted back to a double, for
// 0 <= digits <= 20 and |value| < 1e21 (cost rounding uses toFixed(8)).
double round_to_fixed(double value, int digits);

}  // namespace strata::model
