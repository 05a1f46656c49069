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
//    in plain decimal (arbitrary size)"; only dynamic_packet can hold numbers), except those of
//    a member that a later duplicate key replaces (the last duplicate wins, as in Python);
//  - the system message holds the five stable_prefix sections in order.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
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

// The integer lexemes (no fraction, no exponent) of a JSON text that survive parsing, "-0"
// written as "0". A member whose key comes again later in the same object is replaced by the
// later one (Python's json.loads and nlohmann alike: the last duplicate wins), so the integers
// of a replaced member are left out (found by fuzzing: a context with "t" twice).
// Called only on text the strict parser accepted.
class IntegerLexemes {
 public:
  explicit IntegerLexemes(std::string_view text) : text_(text) {}

  std::vector<std::string> surviving() {
    std::vector<std::string> out;
    value(out);
    return out;
  }

 private:
  void skip_space() {
    while (at_ < text_.size() && std::string_view(" \t\r\n").find(text_[at_]) != std::string_view::npos) ++at_;
  }
  // The raw text of a string (escapes kept): two keys are the same key when their decoded
  // forms are equal, which the caller compares after decoding.
  std::string_view string_text() {
    const std::size_t start = at_++;
    while (text_[at_] != '"') at_ += text_[at_] == '\\' ? 2 : 1;
    ++at_;
    return text_.substr(start, at_ - start);
  }
  void value(std::vector<std::string>& out) {
    skip_space();
    const char c = text_[at_];
    if (c == '{') {
      ++at_;
      // Each member's lexemes, kept by decoded key: a later duplicate replaces the earlier.
      std::vector<std::pair<std::string, std::vector<std::string>>> members;
      skip_space();
      while (text_[at_] != '}') {
        if (text_[at_] == ',') ++at_;
        skip_space();
        const std::string key = strata::model::Json::parse(string_text()).get<std::string>();
        skip_space();
        ++at_;  // ':'
        std::vector<std::string> lexemes;
        value(lexemes);
        std::erase_if(members, [&](const auto& member) { return member.first == key; });
        members.emplace_back(key, std::move(lexemes));
        skip_space();
      }
      ++at_;
      for (auto& member : members) out.insert(out.end(), member.second.begin(), member.second.end());
    } else if (c == '[') {
      ++at_;
      skip_space();
      while (text_[at_] != ']') {
        if (text_[at_] == ',') ++at_;
        value(out);
        skip_space();
      }
      ++at_;
    } else if (c == '"') {
      string_text();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t start = at_;
      bool fraction = false;
      for (; at_ < text_.size() && std::string_view("0123456789.eE+-").find(text_[at_]) != std::string_view::npos; ++at_)
        if (std::string_view(".eE").find(text_[at_]) != std::string_view::npos) fraction = true;
      const std::string_view lexeme = text_.substr(start, at_ - start);
      if (!fraction) out.emplace_back(lexeme == "-0" ? "0" : lexeme);
    } else {
      while (at_ < text_.size() && text_[at_] >= 'a' && text_[at_] <= 'z') ++at_;  // true, false, null
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

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

  for (const std::string& lexeme : IntegerLexemes(fuzz::as_text(data, size)).surviving())
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
