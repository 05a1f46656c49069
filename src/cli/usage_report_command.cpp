// strata usage report [--last N] [--log-home PATH] [--json] (cm-usage-report, usage-boundary
// spec §3). Text by default, as the reference; warnings on stderr, each prefixed with the
// program name; exit 0 unless --last is not an integer >= 1 (exit 2, the reference's
// argument-parser status, as every usage error of the boundary commands).
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "command.hpp"
#include "strata/app/cm/usage_report.hpp"

namespace strata::cli {
namespace {

struct ReportOptions {
  std::string last = "10";
  std::string log_home;
  bool json = false;
};

// Python's int(): optional surrounding whitespace, an optional sign, decimal digits
// (single underscores between digits allowed). Values past size_t keep every run.
std::optional<std::size_t> parse_last(const std::string& text) {
  std::size_t begin = text.find_first_not_of(" \t\n\r\f\v");
  const std::size_t end = text.find_last_not_of(" \t\n\r\f\v");
  if (begin == std::string::npos) return std::nullopt;
  bool negative = false;
  if (text[begin] == '+' || text[begin] == '-') negative = text[begin++] == '-';
  if (begin > end) return std::nullopt;
  std::size_t value = 0;
  bool saw_digit = false, nonzero = false;
  for (std::size_t i = begin; i <= end; ++i) {
    const char c = text[i];
    if (c == '_' && saw_digit && i < end && text[i + 1] >= '0' && text[i + 1] <= '9') continue;
    if (c < '0' || c > '9') return std::nullopt;
    saw_digit = true;
    nonzero = nonzero || c != '0';
    const std::size_t digit = static_cast<std::size_t>(c - '0');
    value = value > (std::numeric_limits<std::size_t>::max() - digit) / 10 ? std::numeric_limits<std::size_t>::max()
                                                                           : value * 10 + digit;
  }
  if (negative && nonzero) return 0;  // parsed, but below 1
  return value;
}

int report(const ReportOptions& options) {
  const std::string prefix = program_name("usage report") + ": ";
  const std::optional<std::size_t> last = parse_last(options.last);
  if (!last || *last < 1) {
    const std::string why = last ? "must be at least 1" : "invalid integer value: '" + options.last + "'";
    std::fprintf(stderr, "%sargument --last: %s\n", prefix.c_str(), why.c_str());
    return static_cast<int>(ExitCode::failure);
  }
  app::UsageReportOptions settings;
  settings.log_home = app::resolve_log_home(options.log_home, std::getenv("CM_WORKFLOW_LOG_HOME"));
  settings.last = *last;
  const app::UsageReport result = app::build_usage_report(settings);
  for (const std::string& warning : result.warnings) std::fprintf(stderr, "%s%s\n", prefix.c_str(), warning.c_str());
  std::fflush(stderr);
  if (options.json) {
    print_lines({app::format_usage_report_json(result)});
  } else {
    print_lines(app::format_usage_report_text(result));
  }
  return 0;
}

}  // namespace

void add_usage_report_command(CLI::App& usage, Action& action) {
  auto options = std::make_shared<ReportOptions>();
  auto* sub = usage.add_subcommand("report", "Summarise model usage from the global event log (cm-usage-report)");
  sub->add_option("--last", options->last, "Number of most recent runs to include (integer >= 1, default 10)");
  sub->add_option("--log-home", options->log_home,
                  "Log home to read (default: $CM_WORKFLOW_LOG_HOME, else ~/.cm-workflow/logs)");
  sub->add_flag("--json", options->json, "Print one line of JSON instead of text");
  sub->footer("Reads only <log home>/index.jsonl and the run files it names; never writes.\n"
              "Exit status: 0 report printed (warnings on stderr), 2 invalid --last.");
  sub->callback([options, &action] { action = [options] { return report(*options); }; });
}

}  // namespace strata::cli
