// §2.1 steps 2-8 of usage-lifecycle.md over the authoritative log's digest. The state
// machines themselves are model/cm/lifecycle_state; this file only decides which of them a
// candidate meets, in the spec's order, and what "cannot be verified" means for a log.
#include "lifecycle_gate.hpp"

#include "strata/model/cm/lifecycle_state.hpp"

namespace strata::store::event_log {
namespace {

namespace lifecycle = model::lifecycle;

// The <ErrorType> of a log whose rows cannot all be read, whatever the run: an OS error,
// then ill-formed UTF-8 (the reference fails to decode the file before it parses a line,
// §7 item 3), then a line that is not JSON (§7 item 2: it poisons every run of the log).
std::optional<std::string> whole_log_error(const IndexedLog& log) {
  if (log.read_error() != 0) return python_error_type(log.read_error());
  if (log.digest().undecodable()) return "UnicodeDecodeError";
  if (log.digest().unparseable()) return "UsageError";
  return std::nullopt;
}

std::string text_member(const OrderedJson& data, const char* key) {
  const auto it = data.find(key);
  return it != data.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

void check_lifecycle(const ValidatedEvent& candidate, const std::string& run_id, const std::string& event_id,
                     const IndexedLog& authoritative) {
  const bool resource = candidate.event == "resource";
  const bool test_run = candidate.event == "test_run";
  const bool phased_test_run = test_run && candidate.phase.has_value();
  const bool guarded = lifecycle::is_guarded(candidate.event);
  if (!resource && !test_run && !guarded) return;
  // Step 2: an exact retry bypasses the lifecycle (a log that cannot be read finds nothing).
  if (authoritative.digest().event_offset(event_id)) return;
  if (!resource && !guarded && !phased_test_run) return;

  const auto log_error = whole_log_error(authoritative);
  const RunDigest* run = authoritative.digest().run(run_id);
  const lifecycle::RunLifecycle state = run != nullptr ? run->lifecycle : lifecycle::RunLifecycle{};

  if (resource || guarded) {  // steps 3-5
    if (log_error || state.resources_unverifiable)
      throw UsageError("resource state cannot be verified: " + log_error.value_or("UsageError"));
    if (guarded) {
      if (auto blocked = lifecycle::resource_block(state.resources)) throw UsageError(*blocked);
    } else {
      lifecycle::ResourceState next = state.resources;
      if (auto refused = next.apply(*candidate.phase, text_member(candidate.data, "resource_id"),
                                    text_member(candidate.data, "resource_kind")))
        throw UsageError(*refused);
    }
  }
  if (phased_test_run || guarded) {  // steps 6-8
    if (log_error || state.test_run_unverifiable)
      throw UsageError("test_run state cannot be verified: " + log_error.value_or("UsageError"));
    if (guarded) {
      if (auto blocked = lifecycle::test_run_block(state.test_run)) throw UsageError(*blocked);
    } else {
      lifecycle::TestRunState next = state.test_run;
      if (auto refused = next.apply(*candidate.phase, text_member(candidate.data, "case_id"))) throw UsageError(*refused);
    }
  }
}

}  // namespace strata::store::event_log
