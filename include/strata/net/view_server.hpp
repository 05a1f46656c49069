#pragma once
// The HTTP server of `strata view` (docs/VIEWER.md): Beast on one io_context, serving what
// app::ViewApp answers, and /api/events, the live stream (server-sent events) of what each
// refresh of the studies finds new. Safe by default: loopback unless told otherwise, an access
// token for anything else, a Host header naming the loopback address (no DNS rebinding), GET and
// HEAD only, bounded connections (the oldest idle one is closed for a new one), header and body
// sizes, request time (a slow client is cut off) and request rate, and a strict
// Content-Security-Policy. A malformed or hostile request gets its status and the server goes on.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace strata::app {
class ViewApp;
}

namespace strata::net {

struct ViewServerOptions {
  std::string bind = "127.0.0.1";
  unsigned short port = 0;               // 0: any free port
  std::string token;                     // required of every request when not empty
  std::size_t max_connections = 128;     // beyond: the oldest idle connection is closed, else the new one
  std::size_t max_event_streams = 32;
  std::size_t header_limit = 8192;       // bytes of a request's header (431 beyond)
  std::size_t body_limit = 0;            // bytes of a request's body (413 beyond): GET has none
  std::chrono::milliseconds request_timeout{10000};  // to receive a whole request, or to write an answer
  double requests_per_second = 50;       // per connection, with a burst of twice that (429 beyond)
  std::chrono::milliseconds poll_interval{250};      // how often the studies are read for what is new
};

bool is_loopback_address(const std::string& address);

// Serves until SIGINT or SIGTERM; `listening` is called once with the port bound. Throws
// strata::Error when the address cannot be bound.
void serve_view(app::ViewApp& app, const ViewServerOptions& options, const std::function<void(unsigned short)>& listening);

}  // namespace strata::net
