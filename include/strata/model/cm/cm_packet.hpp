#pragma once
// The pure parts of the CM model-call boundary (usage-boundary spec §1.4, §1.6-1.8):
// strict JSON with the boundary's own messages, the role packet, the Python-style
// canonical JSON of the dynamic packet, the request body, and text and usage extraction.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::model::cm {

inline constexpr int kMaxDepth = 128;

// Strict UTF-8 JSON + tree validation with `label` ("stdin", "provider response") in the
// messages. Integer lexemes stay integers (number_integer/number_unsigned). Throws
// strata::Error with the exact message.
Json parse_strict(std::string_view bytes, const std::string& label);

// json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False): keys by code
// point, floats in Python repr ("1.0", "1e+16", "1e-07").
std::string python_canonical_json(const Json& value);
std::string python_float_repr(double value);

struct RoleMessages {
  std::string system;  // "[safety]\n…\n\n[workflow]\n…" (values verbatim)
  std::string user;    // the canonical dynamic packet
};

// The shape rules of §1.4 in order; throws strata::Error with the exact message.
RoleMessages role_messages(const Json& packet, const std::string& workflow, const std::string& stage,
                           const std::string& role);

// {"model":…,"messages":[system,user],"stream":false}, compact, non-ASCII raw; then the
// members of `parameters` (an endpoint provider's request parameters), if given.
std::string request_body(const std::string& model, const RoleMessages& messages, const Json* parameters = nullptr);

// choices[0].message.content (§1.7 step 4); throws strata::Error with the exact message.
std::string completion_text(const Json& response);

struct Usage {
  bool observed = false;
  std::int64_t input_tokens = 0, output_tokens = 0;
  std::optional<std::int64_t> cache_read_tokens, cache_write_tokens;
};

// §1.8 aliases; `response` may be null (no parsed response).
Usage extract_usage(const Json* response);

// response.model when it is a valid model name.
std::optional<std::string> effective_model(const Json& response);

// CLI value rules of the boundary.
bool is_identifier(std::string_view s);  // ^[A-Za-z][A-Za-z0-9._-]{0,63}$
bool is_call_id(std::string_view s);     // ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$
bool is_run_id(std::string_view s);      // ^[A-Za-z0-9][A-Za-z0-9._-]{7,127}$
bool is_model_name(std::string_view s);  // ^[A-Za-z0-9][A-Za-z0-9._:/+@-]{0,127}$

// A string with at least one character left after stripping Unicode white space.
bool is_non_blank(std::string_view s);

}  // namespace strata::model::cm
