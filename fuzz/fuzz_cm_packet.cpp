// The role packet on the stdin of `strata call` (usage-boundary spec §1.4, §1.6):
// cm::parse_strict("stdin"), cm::role_messages, cm::request_body, as perform_model_call
// runs them after the 1 MiB check. The --workflow/--stage/--role flags are taken from the
// packet's dynamic_packet when they are valid identifiers (so the packet can match them),
// else fixed values.
//
// Invariants:
//  - only strata::Error escapes (the call turns it into the exit-2 message);
//  - the request body is strict JSON that the boundary's own parser accepts, of the form
//    {"model", "messages": [system, user], "stream": false}, carrying exactly the messages;
//  - the user message is the Python canonical JSON of dynamic_packet: it parses again
//    (strict) and is a fixed point of the canonical form;
//  - every integer lexeme of the packet appears verbatim in the user message (§1.4: "integers
//    in plain decimal (arbitrary size)"; only dynamic_packet can hold numbers);
//  - the system message holds the five stable_prefix sections in order.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include "strata/error.hpp"
#include "strata/model/cm/cm_packet.hpp"
#include "strata/model/json/json_writer.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_cm_packet {

using namespace strata;
using model::Json;
namespace cm = model::cm;

namespace {

constexpr std::size_t kMaxPacketBytes = 1024 * 1024;  // model_call.cpp

std::string flag_from(const Json& packet, const char* key, const char* fallback) {
  if (packet.is_object() && packet.contains("dynamic_packet") && packet["dynamic_packet"].is_object()) {
    const Json& dynamic = packet["dynamic_packet"];
    if (dynamic.contains(key) && dynamic[key].is_string() && cm::is_identifier(dynamic[key].get<std::string>()))
      return dynamic[key].get<std::string>();
  }
  return fallback;
}

// The integer lexemes (no fraction, no exponent) of a JSON text, "-0" written as "0".
std::vector<std::string> integer_lexemes(std::string_view text) {
  std::vector<std::string> out;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) continue;
    std::size_t end = i + 1;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    const bool fraction = end < text.size() && (text[end] == '.' || text[end] == 'e' || text[end] == 'E');
    while (end < text.size() && std::string_view("0123456789.eE+-").find(text[end]) != std::string_view::npos) ++end;
    if (!fraction) out.emplace_back(text.substr(i, end - i) == "-0" ? "0" : text.substr(i, end - i));
    i = end - 1;
  }
  return out;
}

}  // namespace

int test_one_input(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxPacketBytes) return 0;  // "role packet exceeds 1 MiB"
  Json packet;
  try {
    packet = cm::parse_strict(fuzz::as_text(data, size), "stdin");
  } catch (const Error&) {
    return 0;
  }
  const std::string workflow = flag_from(packet, "workflow", "cm-prd");
  const std::string stage = flag_from(packet, "stage", "build");
  const std::string role = flag_from(packet, "role", "implementer");

  cm::RoleMessages messages;
  try {
    messages = cm::role_messages(packet, workflow, stage, role);
  } catch (const Error&) {
    return 0;
  }
  const std::string body = cm::request_body("gpt-test", messages);

  Json request;
  try {
    request = cm::parse_strict(body, "request");
  } catch (const Error& e) {
    FUZZ_CHECK(false, std::string("request body is not strict JSON (") + e.what() + "): " + fuzz::excerpt(body));
  }
  FUZZ_CHECK(request.is_object() && request.size() == 3 && request["model"] == "gpt-test" && request["stream"] == false,
             "request body has another shape: " + fuzz::excerpt(body));
  const Json& sent = request["messages"];
  FUZZ_CHECK(sent.is_array() && sent.size() == 2, "request body does not carry two messages");
  FUZZ_CHECK(sent[0]["role"] == "system" && sent[0]["content"] == messages.system, "system message changed in the body");
  FUZZ_CHECK(sent[1]["role"] == "user" && sent[1]["content"] == messages.user, "user message changed in the body");

  FUZZ_CHECK(messages.user == cm::python_canonical_json(packet["dynamic_packet"]), "user message is not the canonical packet");
  Json user;
  try {
    user = cm::parse_strict(messages.user, "user message");
  } catch (const Error& e) {
    FUZZ_CHECK(false, std::string("canonical dynamic packet does not parse (") + e.what() + "): " + fuzz::excerpt(messages.user));
  }
  FUZZ_CHECK(cm::python_canonical_json(user) == messages.user,
             "canonical dynamic packet is not a fixed point: " + fuzz::excerpt(messages.user));

  for (const std::string& lexeme : integer_lexemes(fuzz::as_text(data, size)))
    FUZZ_CHECK(messages.user.find(lexeme) != std::string::npos,
               "integer " + lexeme + " of the packet is not in the user message: " + fuzz::excerpt(messages.user));

  std::size_t at = 0;
  for (const char* key : {"safety", "workflow", "project_rules", "role", "output_schema"}) {
    const std::string section = std::string("[") + key + "]\n" + packet["stable_prefix"][key].get<std::string>();
    FUZZ_CHECK(messages.system.compare(at, section.size(), section) == 0, std::string("system message section ") + key);
    at += section.size() + 2;
  }
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("cm_packet", &test_one_input);

}  // namespace fuzz_cm_packet
