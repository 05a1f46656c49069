// The page's HTML: no inline script or style (the Content-Security-Policy allows only /app.js and /app.css).
// Kept in the binary: `strata view` works offline and serves no file from disk for its page.
#include "strata/app/view/view_app.hpp"

namespace strata::app {

const std::string& view_page_html() {
  static const std::string text = R"strata_page(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Strata view</title>
<link rel="stylesheet" href="/app.css">
<link rel="icon" href="data:,">
<script src="/app.js" defer></script>
</head>
<body>
<header>
  <h1>Strata view</h1>
  <span id="live" class="live" role="status">connecting</span>
</header>
<main>
  <nav id="studies" aria-label="Studies"><p class="muted">Looking for studies</p></nav>
  <section id="study" hidden>
    <h2 id="study-name"></h2>
    <p id="study-path" class="muted"></p>
    <p id="study-problem" class="problem" hidden></p>
    <div id="overview" class="cards"></div>
    <table id="progress"><caption>Progress against the plan</caption>
      <thead><tr><th>Run</th><th>Recorded</th><th>Planned</th><th>Done</th></tr></thead><tbody></tbody></table>
    <p id="run-state" class="muted">Not running</p>
    <table id="running" hidden><caption>Running now</caption>
      <thead><tr><th>Task</th><th>Arm</th><th>Attempt</th><th>Started</th></tr></thead><tbody></tbody></table>
    <details id="metrics-panel"><summary>Per arm: metrics, paired comparison, findings</summary><div id="metrics"></div></details>
    <details id="report-panel"><summary>The report, with its plots</summary><iframe id="report-frame" title="The study's report" sandbox></iframe></details>
    <h3>Observations <span id="table-count" class="muted"></span></h3>
    <form id="filters" aria-label="Filters">
      <label>Arm <select name="arm"></select></label>
      <label>Run <select name="run"></select></label>
      <label>Status <select name="status"></select></label>
      <label>Error <select name="error"></select></label>
      <label>Claimed <select name="claimed"></select></label>
      <label>Adjudicated <select name="adjudicated"></select></label>
      <label>Verified <select name="verified">
        <option value="">any</option><option value="passed">all checks passed</option><option value="failed">a check failed</option>
        <option value="not-verified">not verified</option><option value="claim-false">claim false</option><option value="claim-true">claim true</option>
      </select></label>
    </form>
    <table id="observations">
      <thead><tr>
        <th data-sort="index">#</th><th data-sort="task">Task</th><th data-sort="arm">Arm</th><th data-sort="run">Run</th>
        <th data-sort="status">Status</th><th data-sort="error">Error</th><th data-sort="claimed">Claimed</th>
        <th data-sort="adjudicated">Adjudicated</th><th data-sort="verified">Verified</th><th data-sort="tokens">Tokens</th>
        <th data-sort="cost">Cost (USD)</th><th data-sort="duration">Duration (ms)</th>
      </tr></thead>
      <tbody></tbody>
    </table>
    <div id="pager"><button id="prev" type="button">Previous</button> <span id="page"></span> <button id="next" type="button">Next</button></div>
  </section>
  <aside id="detail" hidden aria-label="Observation">
    <button id="close" type="button">Close</button>
    <h3 id="detail-title"></h3>
    <div id="detail-body"></div>
  </aside>
</main>
</body>
</html>
)strata_page";
  return text;
}

}  // namespace strata::app
