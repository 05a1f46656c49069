#pragma once
// The lexical types of spec §1.0 (identifier, reference, hash, safeText, ...).
#include <optional>
#include <string>
#include <string_view>

namespace strata::model {

enum class TextRule {
  any,               // any string within the length bounds
  identifier,        // ^[a-z][a-z0-9-]{0,127}$
  reference,         // ^[a-z0-9][a-z0-9._:-]{0,255}$
  model_reference,   // ^[a-z0-9][a-z0-9._:/-]{0,255}$
  hash,              // ^[a-f0-9]{64}$
  environment_name,  // ^[A-Z][A-Z0-9_]{0,127}$
  evidence_id,       // 1..256 units, no NUL/CR/LF
  safe_text,         // 1..2048 units, isSafeStudyText
  command,           // 1..512 units, no NUL/CR/LF
  argument,          // 0..2048 units, no NUL/CR/LF
  datetime,          // YYYY-MM-DDTHH:MM:SS[.fff]Z
};

inline constexpr std::string_view kUnsafeTextMessage =
    "Public study text cannot contain paths, URLs, credentials, or secret material";

// What the rule requires, for error messages ("an identifier (^[a-z]...$)").
std::string describe(TextRule rule);

// An ECMAScript/JSON-Schema pattern for the rule, or empty when none applies.
std::string json_schema_pattern(TextRule rule);

// Length bounds in UTF-16 code units implied by the rule (min, max); max 0 = none.
std::pair<std::size_t, std::size_t> length_bounds(TextRule rule);

// isSafeStudyText of spec §1.0.
bool is_safe_study_text(std::string_view text);

// nullopt when the text satisfies the rule, else the error message.
std::optional<std::string> check_text(TextRule rule, std::string_view text);

}  // namespace strata::model
