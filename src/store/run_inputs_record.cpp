#include "strata/store/run_inputs_record.hpp"

#include <sys/stat.h>

#include <cerrno>

#include "strata/error.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/artifact_file.hpp"

namespace strata::store {
namespace {

constexpr const char* kFormat = "strata-run-inputs-v1";

// The whole file, or an empty record when there is none.
model::Json read_record(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 && errno == ENOENT) return {{"format", kFormat}, {"runs", model::Json::object()}};
  model::Json record = read_json_file(path);
  if (!record.is_object() || record.value("format", "") != kFormat || !record.contains("runs") || !record["runs"].is_object())
    throw Error("not a Strata run-inputs record (remove it to record the inputs again)", path);
  return record;
}

}  // namespace

std::string run_inputs_path_for(const std::string& ledger_path) { return ledger_path + ".inputs"; }

std::optional<model::Json> read_run_inputs(const std::string& ledger_path, const std::string& run_id) {
  const model::Json record = read_record(run_inputs_path_for(ledger_path));
  const auto it = record["runs"].find(run_id);
  if (it == record["runs"].end()) return std::nullopt;
  return *it;
}

void write_run_inputs(const std::string& ledger_path, const std::string& run_id, const model::Json& inputs) {
  const std::string path = run_inputs_path_for(ledger_path);
  model::Json record = read_record(path);
  record["runs"][run_id] = inputs;
  write_file_atomically(path, model::pretty_json(record) + "\n");
}

}  // namespace strata::store
