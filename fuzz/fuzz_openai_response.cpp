// The body of a 2xx chat-completions response as `strata call` handles it
// (app/cm/model_call.cpp call_provider + usage_data): cm::parse_strict("provider response"),
// the object check, cm::completion_text, cm::extract_usage (the §1.8 aliases
// input/prompt_tokens, output/completion_tokens, cache_read_input_tokens /
// prompt_tokens_details.cached_tokens, cache_creation_input_tokens /
// prompt_tokens_details.cache_write_tokens), cm::effective_model, and the usage event's
// --data-json as the event-log writer validates it.
//
// The glue between those pure functions lives in model_call.cpp's anonymous namespace
// next to the HTTPS call, so it is mirrored here line for line (see fuzz/README.md).
//
// Invariants:
//  - the parsers throw only strata::Error (their messages are the boundary's);
//  - an accepted response is a JSON object no deeper than the boundary's limit;
//  - extracted token counts are non-negative and equal to the alias value they came from;
//  - effective_model, when set, is a valid model name taken from response.model;
//  - the model_usage event `strata call` writes for this response (success or error)
//    passes the writer's own --data-json and model_usage validation, and its counts
//    read back unchanged: a provider's response can never make the usage log refuse it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz_support.hpp"
#include "store/event_log_internal.hpp"
#include "strata/error.hpp"
#include "strata/model/cm/cm_packet.hpp"
#include "strata/model/json/json_writer.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_openai_response {

using namespace strata;
using model::Json;
namespace cm = model::cm;

namespace {

struct Attempt {
  std::optional<Json> response;
  std::optional<std::string> text;
  std::string failure;
};

// call_provider's 2xx branch.
Attempt handle_body(std::string_view body) {
  Attempt a;
  try {
    Json parsed = cm::parse_strict(body, "provider response");
    if (!parsed.is_object()) throw Error("provider response must be a JSON object");
    a.response = std::move(parsed);
    a.text = cm::completion_text(*a.response);
  } catch (const Error& e) {
    a.failure = e.what();
  }
  // Anything else escapes: model_call.cpp would report "response handling failed" instead of
  // the boundary's message.
  return a;
}

// usage_data(), with the flags of a typical call.
std::string usage_data(const Attempt& a, const std::string& outcome, const cm::Usage& usage) {
  Json data = {{"call_id", "call-0001"},
               {"stage", "build"},
               {"role", "implementer"},
               {"adapter", "openai-compatible"},
               {"requested_model", "gpt-test"},
               {"source", "api"},
               {"purpose", "cm-prd:build"},
               {"usage_state", usage.observed ? "observed" : "unavailable"},
               {"duration_ms", static_cast<std::int64_t>(1234)},
               {"outcome", outcome}};
  if (a.response)
    if (auto model = cm::effective_model(*a.response)) data["effective_model"] = *model;
  if (usage.observed) {
    data["input_tokens"] = usage.input_tokens;
    data["output_tokens"] = usage.output_tokens;
    if (usage.cache_read_tokens) data["cache_read_tokens"] = *usage.cache_read_tokens;
    if (usage.cache_write_tokens) data["cache_write_tokens"] = *usage.cache_write_tokens;
  }
  return model::compact_json(data);
}

// The first alias holding a non-negative JSON integer, as the spec reads §1.8.
std::optional<std::uint64_t> alias_value(const Json& object, std::initializer_list<const char*> names) {
  if (!object.is_object()) return std::nullopt;
  for (const char* name : names) {
    const auto it = object.find(name);
    if (it == object.end()) continue;
    if (it->is_number_unsigned()) return it->get<std::uint64_t>();
    if (it->is_number_integer() && it->get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(it->get<std::int64_t>());
  }
  return std::nullopt;
}

void check_count(const char* name, std::int64_t extracted, std::optional<std::uint64_t> expected) {
  FUZZ_CHECK(extracted >= 0, std::string(name) + " extracted as a negative count " + std::to_string(extracted));
  FUZZ_CHECK(expected && static_cast<std::uint64_t>(extracted) == *expected,
             std::string(name) + " " + std::to_string(extracted) + " is not the response's value");
}

}  // namespace

int test_one_input(const std::uint8_t* data, std::size_t size) {
  const Attempt a = handle_body(fuzz::as_text(data, size));
  if (a.response) {
    FUZZ_CHECK(a.response->is_object(), "accepted a response that is not an object");
  }

  const cm::Usage usage = cm::extract_usage(a.response ? &*a.response : nullptr);
  if (usage.observed) {
    const Json& u = (*a.response)["usage"];
    const Json details = u.contains("prompt_tokens_details") ? u["prompt_tokens_details"] : Json();
    check_count("input_tokens", usage.input_tokens, alias_value(u, {"input_tokens", "prompt_tokens"}));
    check_count("output_tokens", usage.output_tokens, alias_value(u, {"output_tokens", "completion_tokens"}));
    if (usage.cache_read_tokens) {
      auto expected = alias_value(u, {"cache_read_input_tokens"});
      if (!expected) expected = alias_value(details, {"cached_tokens"});
      check_count("cache_read_tokens", *usage.cache_read_tokens, expected);
    }
    if (usage.cache_write_tokens) {
      auto expected = alias_value(u, {"cache_creation_input_tokens"});
      if (!expected) expected = alias_value(details, {"cache_write_tokens"});
      check_count("cache_write_tokens", *usage.cache_write_tokens, expected);
    }
  }
  if (a.response) {
    if (const auto model = cm::effective_model(*a.response)) {
      FUZZ_CHECK(cm::is_model_name(*model) && (*a.response)["model"] == *model, "effective_model is not response.model");
    }
  }

  for (const char* outcome : {"success", "error"}) {
    const std::string raw = usage_data(a, outcome, usage);
    try {
      const auto parsed = store::event_log::parse_data_json(raw, "model_usage");
      store::event_log::validate_model_usage(std::string("complete"), parsed);
      if (usage.observed) {
        FUZZ_CHECK(parsed.at("input_tokens") == usage.input_tokens && parsed.at("output_tokens") == usage.output_tokens,
                   "the usage event records other token counts than the response's: " + raw);
      }
    } catch (const store::event_log::UsageError& e) {
      FUZZ_CHECK(false, std::string("the event log refuses the usage event of this response: ") + e.what() + "\n  data: " + raw);
    }
  }
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("openai_response", &test_one_input);

}  // namespace fuzz_openai_response
