#pragma once
// `strata view`'s answers (docs/VIEWER.md): what each request path returns, from the studies found
// in the files and directories named on the command line. The HTTP server (net/view_server) asks
// it; nothing here knows of sockets. Read-only: it opens files to read and never writes one.
//
// Paths (GET and HEAD only; anything else 404, and the server answers 405 to other methods):
//   /  /app.js  /app.css                       the page (embedded in the binary)
//   /api/studies                               the studies found, each with its summary
//   /api/studies/N/observations?FILTERS        a page of the observation table
//   /api/studies/N/observations/I              one observation, its trajectory, patch and verifier output
//   /api/studies/N/metrics                     strata metrics of ledger + journal
//   /api/studies/N/report                      strata report's HTML (its plots), for a frame
// and /api/events, the live stream, which the server serves from refresh().
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "strata/model/json/json.hpp"
#include "strata/app/view/observation_table.hpp"

namespace strata::app {

struct ViewResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  bool report_page = false;  // strata report's own HTML: its style sheet is inline (no script)
};

class ViewApp {
 public:
  // The paths named on the command line (ledgers, or directories holding ledgers, plans, suites,
  // kept trajectories, patches and verifier outputs). Throws strata::Error for a path that is
  // missing, a symbolic link, or neither a regular file nor a directory.
  explicit ViewApp(std::vector<std::string> paths);

  ViewResponse handle(const std::string& path, const std::string& query);

  // Reads what is new in every study (new ledgers in the named directories too); the JSON of
  // what changed ({"studies": [{"id", "added" | "reset", "summary"}]}), or "" for nothing.
  std::string refresh();

  std::size_t study_count() const { return studies_.size(); }

 private:
  struct Study {
    std::unique_ptr<ObservationTable> table;
    std::size_t metrics_rows = static_cast<std::size_t>(-1);  // the table's size the cached metrics saw
    std::int64_t live_stamp = 0;  // <ledger>.live's modification time when last read (0: none)
    std::string metrics_json;
  };
  void discover();
  model::Json study_json(std::size_t id) const;
  model::Json run_progress(const Study& study, const model::Json& summary) const;  // summary: the table's
  model::Json companions(const Study& study, const std::string& execution_key) const;
  ViewResponse metrics(Study& study);
  ViewResponse report(Study& study);

  std::vector<std::string> paths_;
  std::vector<Study> studies_;
  std::map<std::string, std::size_t> study_of_;  // ledger path -> id
  std::vector<model::Json> plans_, suites_;      // sealed, their hashes verified
  mutable std::map<std::string, model::Json> planned_;  // a plan's hash -> its selection's size
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> examined_;  // a file looked at -> its size and time then
  unsigned refreshes_ = 0;
};

// A request's query string as its members, each name and value percent-decoded ('+' is a space;
// a value with a malformed escape is ""). A repeated name keeps its last value.
std::map<std::string, std::string> query_members(const std::string& query);

// The embedded page (page/).
const std::string& view_page_html();
const std::string& view_page_script();
const std::string& view_page_style();

}  // namespace strata::app
