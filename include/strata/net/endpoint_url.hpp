#pragma once
// URL rules of the model-call boundary (usage-boundary spec §1.3): parsing an HTTP(S) base
// URL, the lexical loopback test, and the chat-completions endpoint. Pure: no DNS.
#include <optional>
#include <string>
#include <string_view>

namespace strata::net {

struct Url {
  std::string scheme;  // lower-case "http" or "https"
  std::string host;    // lower-case, IPv6 without brackets
  std::string port;    // decimal text; the scheme default when absent
  std::string target;  // path, "/" when empty
  bool has_userinfo = false, has_query = false, has_fragment = false;
};

// Parses an absolute http(s) URL. nullopt when host or port cannot be extracted or the
// scheme is not http/https.
std::optional<Url> parse_url(std::string_view text);

// localhost, 127.0.0.0/8 or ::1, decided on the text alone (no DNS).
bool is_loopback_host(std::string_view host);

// Why a base URL cannot be used for endpoint calls, or nullopt when it can: not an absolute
// http(s) URL with a host; credentials, query or fragment in it; plain http to a host that is
// not loopback. Callers word the message (they name the variable the URL came from).
enum class BaseUrlProblem { not_http_url, credentials_or_query, plain_http_to_remote };
std::optional<BaseUrlProblem> base_url_problem(std::string_view base_url);

// base URL without trailing '/', plus "/chat/completions" unless it already ends so.
std::string chat_completions_endpoint(std::string_view base_url);

}  // namespace strata::net
