// model/cm/lifecycle_state: the usage-lifecycle input rules (§1.2), the resource and test_run
// state machines (§2.3, §2.4) and the completion refusals (§3), without files.
#include <catch2/catch.hpp>

#include "strata/model/cm/lifecycle_state.hpp"

using strata::model::Json;
namespace lifecycle = strata::model::lifecycle;

// Named (the unit tests are a unity build: helpers must not meet another file's).
namespace lifecycle_state_test {
namespace {

std::optional<std::string> input(const char* event, std::optional<std::string> phase, const char* data) {
  return lifecycle::input_error(event, phase, Json::parse(data));
}

Json row(const char* text) { return Json::parse(text); }

}  // namespace

TEST_CASE("lifecycle input rules in the spec's order", "[lifecycle]") {
  CHECK(input("resource", std::nullopt, R"({"resource_id":"vm-1","resource_kind":"vm","cleanup_required":true})") ==
        "resource events require phase acquired, released, or cleanup_failed");
  CHECK(input("resource", "acquired", R"({"resource_id":"-vm","resource_kind":"Virtual Machine"})") ==
        "resource events require a valid resource_id");
  CHECK(input("resource", "acquired", R"({"resource_id":"7vm","resource_kind":"9vm"})") ==
        "resource events require a valid resource_kind");
  CHECK(input("resource", "acquired", R"({"resource_id":"vm-1","resource_kind":"vm","cleanup_required":1})") ==
        "resource acquisition requires cleanup_required: true");
  CHECK_FALSE(input("resource", "released", R"({"resource_id":"vm-1","resource_kind":"vm","cleanup_required":"no"})"));
  CHECK_FALSE(input("resource", "acquired", R"({"resource_id":"vm-1","resource_kind":"vm","cleanup_required":true})"));
  CHECK(input("test_run", "superseded", "{}") ==
        "test_run events require phase start, case_start, case_complete, case_blocked, or complete");
  CHECK(input("test_run", "case_blocked", R"({"case_id":"case 7"})") == "test_run case events require a valid case_id");
  CHECK_FALSE(input("test_run", "start", R"({"case_id":"not checked here"})"));
  CHECK_FALSE(input("test_run", std::nullopt, R"({"case_id":"bad id!"})"));  // unphased: free-form
  CHECK_FALSE(input("progress", "whatever", "{}"));
  CHECK(lifecycle::is_lifecycle_id(std::string(128, '7')));
  CHECK_FALSE(lifecycle::is_lifecycle_id(std::string(129, 'r')));
  CHECK_FALSE(lifecycle::is_kind(std::string(65, 'k')));
}

TEST_CASE("resource transitions follow the §2.3 table", "[lifecycle]") {
  lifecycle::ResourceState state;
  CHECK(state.apply("released", "vm-1", "vm") == "resource terminal phase has no acquisition");
  CHECK(state.apply("cleanup_failed", "vm-1", "vm") == "resource terminal phase has no acquisition");
  CHECK_FALSE(state.apply("acquired", "vm-1", "vm"));
  CHECK(state.apply("cleanup_failed", "vm-1", "container") == "resource_kind does not match its acquisition");
  CHECK(state.apply("acquired", "vm-1", "vm") == "active resource_id already has an acquisition; acquire a new resource_id");
  CHECK_FALSE(state.apply("cleanup_failed", "vm-1", "vm"));
  CHECK_FALSE(state.apply("cleanup_failed", "vm-1", "vm"));
  CHECK(state.apply("acquired", "vm-1", "vm") == "released resource_id cannot be reused; acquire a new resource_id");
  CHECK(state.open_ids() == std::vector<std::string>{"vm-1"});
  CHECK_FALSE(state.apply("released", "vm-1", "vm"));
  CHECK(state.apply("cleanup_failed", "vm-1", "vm") == "released resource cannot fail cleanup");
  CHECK_FALSE(state.apply("released", "vm-1", "vm"));
  CHECK(state.open_ids().empty());
  for (const char* id : {"web-2", "Api-1", "db-10"}) CHECK_FALSE(state.apply("acquired", id, "proc"));
  CHECK(lifecycle::resource_block(state) == "completion blocked by unclosed resources: Api-1, db-10, web-2");
}

TEST_CASE("released resources restored packed answer like the map they came from", "[lifecycle]") {
  lifecycle::ResourceState original;
  for (const char* id : {"b-2", "a-1", "c-3", "d-4"}) REQUIRE_FALSE(original.apply("acquired", id, "vm"));
  for (const char* id : {"b-2", "a-1", "c-3"}) REQUIRE_FALSE(original.apply("released", id, "vm"));
  CHECK(original.released_text() == "a-1\tvm\nb-2\tvm\nc-3\tvm\n");
  lifecycle::ResourceState restored;
  restored.restore(original.unreleased(), original.released_text());
  CHECK(restored.open_ids() == std::vector<std::string>{"d-4"});
  for (const char* id : {"a-1", "b-2", "c-3"}) {
    CHECK(restored.apply("acquired", id, "vm") == "released resource_id cannot be reused; acquire a new resource_id");
    CHECK(restored.apply("released", id, "db") == "resource_kind does not match its acquisition");
    CHECK(restored.apply("cleanup_failed", id, "vm") == "released resource cannot fail cleanup");
    CHECK_FALSE(restored.apply("released", id, "vm"));
  }
  CHECK(restored.apply("released", "a-0", "vm") == "resource terminal phase has no acquisition");
  REQUIRE_FALSE(restored.apply("released", "d-4", "vm"));
  CHECK(restored.released_text() == "a-1\tvm\nb-2\tvm\nc-3\tvm\nd-4\tvm\n");
  CHECK(restored.all().size() == 4);
}

TEST_CASE("test_run transitions follow the §2.4 table", "[lifecycle]") {
  lifecycle::TestRunState state;
  CHECK(state.apply("case_start", "C-1") == "test_run case_start has no active test run");
  CHECK(state.apply("case_complete", "C-1") == "test_run case terminal phase has no active test run");
  CHECK(state.apply("complete", "") == "test_run complete has no active test run");
  CHECK_FALSE(state.apply("start", ""));
  CHECK(state.apply("start", "") == "test_run start has no preceding complete");
  CHECK_FALSE(state.apply("case_start", "C-2"));
  CHECK_FALSE(state.apply("case_start", "C-10"));
  CHECK(state.apply("case_start", "C-2") == "test_run case already has an active case_start");
  CHECK(state.apply("case_blocked", "C-3") == "test_run case terminal phase has no case_start");
  CHECK(state.apply("complete", "") == "test_run complete has unfinished cases");
  CHECK(lifecycle::test_run_block(state) ==
        "completion blocked by incomplete test_run: active invocation; open cases: C-10, C-2");
  CHECK_FALSE(state.apply("case_blocked", "C-2"));
  CHECK_FALSE(state.apply("case_complete", "C-10"));
  CHECK_FALSE(state.apply("case_start", "C-2"));  // a closed case id may be reused
  CHECK_FALSE(state.apply("case_complete", "C-2"));
  CHECK(lifecycle::test_run_block(state) == "completion blocked by incomplete test_run: active invocation");
  CHECK_FALSE(state.apply("complete", ""));
  CHECK_FALSE(lifecycle::test_run_block(state));
}

TEST_CASE("reading a run's rows: skipped, ignored and unverifiable rows", "[lifecycle]") {
  lifecycle::RunLifecycle run;
  run.read_row(row(R"({"event":"test_run","phase":"complete"})"));  // historical standalone completion
  run.read_row(row(R"({"event":"test_run","phase":null,"case_id":7})"));
  run.read_row(row(R"({"event":"test_run","suite":"smoke"})"));
  run.read_row(row(R"({"event":"progress","phase":"bogus"})"));
  CHECK_FALSE(run.test_run_unverifiable);
  CHECK_FALSE(run.test_run.incomplete());
  run.read_row(row(R"({"event":"test_run","phase":"case_complete","case_id":"C-1"})"));
  CHECK(run.test_run_unverifiable);

  lifecycle::RunLifecycle resources;
  resources.read_row(row(R"({"event":"resource","phase":"acquired","resource_id":"vm-9","resource_kind":"vm"})"));
  CHECK(resources.resources_unverifiable);  // no cleanup_required: true
  lifecycle::RunLifecycle odd_phase;
  odd_phase.read_row(row(R"({"event":"resource","phase":["acquired"],"resource_id":"vm-9","resource_kind":"vm"})"));
  CHECK(odd_phase.resources_unverifiable);
  CHECK_FALSE(odd_phase.test_run_unverifiable);
}

}  // namespace lifecycle_state_test
