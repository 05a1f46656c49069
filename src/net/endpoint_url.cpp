#include "strata/net/endpoint_url.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace strata::net {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<Url> parse_url(std::string_view text) {
  Url url;
  const std::size_t colon = text.find("://");
  if (colon == std::string_view::npos) return std::nullopt;
  url.scheme = lower(text.substr(0, colon));
  if (url.scheme != "http" && url.scheme != "https") return std::nullopt;
  std::string_view rest = text.substr(colon + 3);
  const std::size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view tail = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    url.has_userinfo = at > 0;
    authority = authority.substr(at + 1);
  }
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    url.host = lower(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
    }
  } else {
    const std::size_t c = authority.rfind(':');
    url.host = lower(authority.substr(0, c));
    if (c != std::string_view::npos) port = authority.substr(c + 1);
  }
  if (!port.empty()) {
    if (!all_digits(port) || port.size() > 5 || std::stoi(std::string(port)) > 65535) return std::nullopt;
    url.port = std::string(port);
  } else {
    url.port = url.scheme == "https" ? "443" : "80";
  }
  const std::size_t query = tail.find('?');
  const std::size_t fragment = tail.find('#');
  url.has_query = query != std::string_view::npos && query + 1 < std::min(fragment, tail.size());
  url.has_fragment = fragment != std::string_view::npos && fragment + 1 < tail.size();
  const std::string_view path = tail.substr(0, std::min(query, fragment));
  url.target = path.empty() ? "/" : std::string(path);
  return url;
}

bool is_loopback_host(std::string_view host_text) {
  std::string host = lower(host_text);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost") return true;
  unsigned char v4[4];
  // inet_pton accepts only the dotted-quad form ("127.1" and "0x7f.0.0.1" are refused).
  if (::inet_pton(AF_INET, host.c_str(), v4) == 1) return v4[0] == 127;
  unsigned char v6[16];
  if (::inet_pton(AF_INET6, host.c_str(), v6) == 1) {
    static const unsigned char kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return std::equal(v6, v6 + 16, kLoopback);
  }
  return false;
}

std::optional<BaseUrlProblem> base_url_problem(std::string_view base_url) {
  const std::optional<Url> url = parse_url(base_url);
  if (!url || url->host.empty()) return BaseUrlProblem::not_http_url;
  if (url->has_userinfo || url->has_query || url->has_fragment) return BaseUrlProblem::credentials_or_query;
  if (url->scheme == "http" && !is_loopback_host(url->host)) return BaseUrlProblem::plain_http_to_remote;
  return std::nullopt;
}

std::string chat_completions_endpoint(std::string_view base_url) {
  std::string base(base_url);
  while (!base.empty() && base.back() == '/') base.pop_back();
  static constexpr std::string_view kSuffix = "/chat/completions";
  if (base.size() >= kSuffix.size() && base.compare(base.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
    return base;
  return base + std::string(kSuffix);
}

}  // namespace strata::net
