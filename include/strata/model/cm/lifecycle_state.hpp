#pragma once
// The event log's `resource` and `test_run` lifecycles (usage-lifecycle spec §1-§3), as pure
// state machines: which input a lifecycle event needs, what a run's rows leave open, which
// candidate event a state refuses, and which completion it blocks. No I/O: the writer
// (store/lifecycle_gate) and the usage report (app/cm/usage_report_lifecycle) feed them rows.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::model::lifecycle {

// ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$ (resource_id, case_id; a leading digit is fine).
bool is_lifecycle_id(std::string_view text);
// ^[A-Za-z][A-Za-z0-9._-]{0,63}$ (resource_kind).
bool is_kind(std::string_view text);

// task_done, done, run_done: the events refused while a run holds lifecycle state.
bool is_guarded(std::string_view event);

// §1.2: the first input rule a `resource` or phased `test_run` event breaks (R1-R4, T1-T2),
// as the refusal message; nullopt for every other event (a test_run without a phase is a
// free-form event).
std::optional<std::string> input_error(std::string_view event, const std::optional<std::string>& phase, const Json& data);

struct Resource {
  std::string phase;  // acquired, released or cleanup_failed
  std::string kind;
};

// §2.3: resource_id -> its last phase and the kind it was acquired with.
//
// A released resource never changes again (it can be released again, nothing else), and a
// long run may have released many thousands: those restored from a state index stay in one
// packed text ("<id>\t<kind>\n" lines sorted by id) searched in place, so that loading a
// run's state does not rebuild a map of every resource it ever held.
class ResourceState {
 public:
  // Applies one resource event. On refusal returns the spec's message and changes nothing.
  std::optional<std::string> apply(const std::string& phase, const std::string& id, const std::string& kind);
  // Ids still held (acquired or cleanup_failed), sorted by code point.
  std::vector<std::string> open_ids() const;
  // Every resource, sorted by id (the packed ones included).
  std::map<std::string, Resource> all() const;

  // The stored form: the resources not released, and the packed text of the released ones.
  std::map<std::string, Resource> unreleased() const;
  std::string released_text() const;
  void restore(std::map<std::string, Resource> unreleased, std::string released_text);

 private:
  std::optional<Resource> find(const std::string& id) const;

  std::map<std::string, Resource> resources_;  // everything not in released_text_
  std::string released_text_;
};

// §2.4: at most one active invocation per run and the cases started but not finished.
struct TestRunState {
  bool active = false;
  std::set<std::string> open_cases;

  // Applies one phased test_run event (case_id is only read for case_* phases). On refusal
  // returns the spec's message and changes nothing.
  std::optional<std::string> apply(const std::string& phase, const std::string& case_id);
  bool incomplete() const { return active || !open_cases.empty(); }
};

// One run's lifecycle as read from its rows in file order. A row that breaks a rule (bad
// id, kind or phase, an orphan, an illegal transition) makes that family unverifiable for
// good: the reference's reader raises UsageError there and never reads on.
struct RunLifecycle {
  ResourceState resources;
  TestRunState test_run;
  bool resources_unverifiable = false;
  bool test_run_unverifiable = false;

  // `row` is an object of this run. Rows of other events are ignored.
  void read_row(const Json& row);
};

// §3 items 2 and 4: the refusal for a completion, or nullopt when nothing blocks it.
std::optional<std::string> resource_block(const ResourceState& state);
std::optional<std::string> test_run_block(const TestRunState& state);

}  // namespace strata::model::lifecycle
