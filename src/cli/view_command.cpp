// strata view [LEDGER|DIR]... [--port N] [--bind ADDR] [--token T]   the live, read-only web viewer
#include <openssl/rand.h>

#include <iostream>
#include <memory>

#include "command.hpp"
#include "strata/model/study/hex_text.hpp"
#include "strata/net/view_server.hpp"
#include "strata/app/view/view_app.hpp"

namespace strata::cli {
namespace {

struct ViewOptions {
  std::vector<std::string> paths;
  net::ViewServerOptions server;
};

std::string new_token() {
  unsigned char bytes[24];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw Error("cannot make an access token (no random bytes)");
  return model::hex_of(bytes, sizeof bytes);
}

int view(ViewOptions options) {
  if (options.paths.empty()) options.paths.push_back(".");
  const std::string& token = options.server.token;
  if (!token.empty() && (token.size() < 16 || token.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != std::string::npos))
    throw Error("an access token is 16 or more letters, digits, '-' or '_'", "--token");
  const bool loopback = net::is_loopback_address(options.server.bind);
  const bool generated = !loopback && token.empty();
  if (generated) options.server.token = new_token();
  app::ViewApp app(options.paths);
  net::serve_view(app, options.server, [&](unsigned short port) {
    const std::string host = options.server.bind.find(':') != std::string::npos ? "[" + options.server.bind + "]" : options.server.bind;
    std::cout << "strata view: " << app.study_count() << (app.study_count() == 1 ? " study" : " studies") << " found; open http://" << host << ":"
              << port << "/" << (options.server.token.empty() ? "" : "?token=" + options.server.token) << "\n";
    if (generated) std::cout << "strata view: not a loopback address, so every request needs that token (made for this run)\n";
    std::cout << "strata view: read-only; Ctrl-C stops it" << std::endl;
  });
  return 0;
}

}  // namespace

void add_view_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<ViewOptions>();
  options->server.port = 7878;
  auto* sub = app.add_subcommand("view", "Serve a live, read-only web viewer of studies (ledgers, their observations, trajectories)");
  sub->add_option("paths", options->paths,
                  "Ledgers, or directories holding them (and their plans, suites, kept trajectories, patches, verifier outputs; "
                  "one level of subdirectories is looked in); default: the current directory");
  sub->add_option("--port", options->server.port, "The port to listen on; 0 picks a free one")->capture_default_str();
  sub->add_option("--bind", options->server.bind, "The address to listen on; any but a loopback one needs an access token")->capture_default_str();
  sub->add_option("--token", options->server.token,
                  "The access token every request must carry (16 or more letters, digits, '-', '_'); made and printed when --bind is not loopback")
      ->envname("STRATA_VIEW_TOKEN");
  sub->footer(
      "Prints the address to open, then serves until Ctrl-C (SIGINT) or SIGTERM. The page shows the studies found,\n"
      "each one's progress against its plan (when the plan and suite are among the paths), tokens, cost and\n"
      "failures, live: an observation appears within a second of being durable in the journal. Per arm: metrics,\n"
      "the paired comparison, findings and the report's plots. The observation table filters, sorts and pages on\n"
      "the server; a row opens the observation, its adjudication, its trajectory step by step, the workspace diff\n"
      "and the verifier's output where they are kept in the paths given (docs/VIEWER.md).\n"
      "Read-only: it never writes a ledger, a journal or anything beside them. Serves only its own page and what it\n"
      "reads from the paths given (no link is followed); loopback by default; a strict Content-Security-Policy.\n"
      "Exit status: 0 when stopped, 2 with one line on stderr (a path missing or not a ledger, the address in use).");
  sub->callback([&action, options] { action = [options] { return view(*options); }; });
}

}  // namespace strata::cli
