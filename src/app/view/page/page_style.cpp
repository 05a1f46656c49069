// The page's style sheet.
// Kept in the binary: `strata view` works offline and serves no file from disk for its page.
#include "strata/app/view/view_app.hpp"

namespace strata::app {

const std::string& view_page_style() {
  static const std::string text = R"strata_page(:root { font-family: system-ui, sans-serif; color: #1b1f24; background: #fafafa; }
body { margin: 0; }
header { display: flex; align-items: baseline; gap: 1em; padding: 0.5em 1em; background: #24323f; color: #fff; }
header h1 { font-size: 1.2em; margin: 0; }
.live { font-size: 0.85em; padding: 0.1em 0.6em; border-radius: 1em; background: #6b7785; }
.live.on { background: #2f8f4e; }
main { display: grid; grid-template-columns: 16em 1fr; gap: 1em; padding: 1em; }
nav button { display: block; width: 100%; text-align: left; margin-bottom: 0.4em; padding: 0.4em; border: 1px solid #ccd; background: #fff; cursor: pointer; }
nav button.current { border-color: #24323f; background: #e8eef5; }
.muted { color: #667; }
.problem { color: #a00; }
.cards { display: flex; flex-wrap: wrap; gap: 0.6em; }
.card { background: #fff; border: 1px solid #dde; padding: 0.5em 0.8em; min-width: 8em; }
.card b { display: block; font-size: 1.3em; }
table { border-collapse: collapse; margin: 0.6em 0; background: #fff; }
th, td { border: 1px solid #dde; padding: 0.2em 0.5em; text-align: left; font-size: 0.9em; }
th[data-sort] { cursor: pointer; }
th.sorted-asc::after { content: " \2191"; }
th.sorted-desc::after { content: " \2193"; }
#observations tbody tr { cursor: pointer; }
#observations tbody tr:hover { background: #eef3f8; }
tr.failed td { color: #a00; }
tr.fresh { background: #fff6d6; }
form#filters { display: flex; flex-wrap: wrap; gap: 0.6em; }
iframe#report-frame { width: 100%; height: 70vh; border: 1px solid #dde; background: #fff; }
aside#detail { position: fixed; top: 0; right: 0; width: min(44em, 45vw); height: 100vh; overflow: auto; background: #fff; border-left: 2px solid #24323f; padding: 1em; box-sizing: border-box; }
pre { white-space: pre-wrap; word-break: break-word; background: #f3f4f6; padding: 0.5em; font-size: 0.85em; max-height: 30em; overflow: auto; }
.step { border-left: 3px solid #9ab; padding-left: 0.6em; margin: 0.6em 0; }
.step.agent { border-color: #2f6f9f; }
.step.user { border-color: #8a5; }
.step.system { border-color: #b85; }
.step h4 { margin: 0.2em 0; font-size: 0.95em; }
)strata_page";
  return text;
}

}  // namespace strata::app
