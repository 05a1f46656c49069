#include <cstdio>

#include "command.hpp"

#include "strata/exec/bounded_process.hpp"
#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/artifact_file.hpp"

namespace strata::cli {

void add_format_flags(CLI::App& command, OutputFormat& format) {
  auto* text = command.add_flag("--text", format.text, "Print summary lines instead of JSON");
  auto* json = command.add_flag("--json", format.json, "Print JSON (the default)");
  text->excludes(json);
}

namespace {
std::string& drop_in_name() {
  static std::string name;
  return name;
}
}  // namespace

std::string program_name(const std::string& command) {
  return drop_in_name().empty() ? "strata " + command : drop_in_name();
}

void set_drop_in_name(const std::string& name) { drop_in_name() = name; }

namespace {
void write_stdout(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}
}  // namespace

void print_json(const model::Json& payload) { write_stdout(model::pretty_json(payload) + "\n"); }

void print_json_with_file(const model::Json& payload, const std::string& member, int fd, const std::string& path) {
  std::string text = "{";
  bool first = true;
  for (const auto& [key, value] : payload.items()) {
    text += first ? "\n  " : ",\n  ";
    first = false;
    model::append_json_string(text, key);
    text += ": ";
    if (key != member) {
      text += model::pretty_json(value, 1);
      continue;
    }
    write_stdout(text);
    text.clear();
    model::PrettyNesting nesting;
    store::read_file_pieces(fd, path, [&nesting](std::string_view piece) {
      write_stdout(nesting.feed(piece));
      return true;
    });
  }
  write_stdout(text + "\n}\n");
}

int jobs_within_limits(int requested) {
  long limit = 0;
  const int jobs = exec::jobs_within_open_file_limit(requested, &limit);
  if (jobs < requested)
    std::fprintf(stderr, "strata: --jobs %d lowered to %d: the open-file limit (ulimit -n) is %ld and each job in flight needs up to 7\n",
                 requested, jobs, limit);
  return jobs;
}

void print_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  write_stdout(out);
}

Error at_file(const std::string& path, const Error& error) {
  // JSON syntax errors already carry "path:line:column".
  if (error.location().rfind(path, 0) == 0) return error;
  return Error(error.what(), error.location().empty() ? path : path + ": " + error.location(), error.code());
}

model::Json load_artifact(model::ArtifactKind kind, const std::string& path) {
  model::Json document = store::read_json_file(path);
  try {
    return model::parse_artifact(kind, std::move(document));
  } catch (const Error& e) {
    throw at_file(path, e);
  }
}

std::unique_ptr<store::LedgerSource> open_ledger(const std::string& path) {
  std::unique_ptr<store::LedgerSource> ledger = store::LedgerSource::open_streamed(path);
  if (!ledger) ledger = std::make_unique<store::LedgerSource>(load_artifact(model::ArtifactKind::ledger, path));
  return ledger;
}

std::string number_text(const model::Json& value) { return model::ecmascript_number(value.get<double>()); }

}  // namespace strata::cli
