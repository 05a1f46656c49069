// The resource and test_run state machines of usage-lifecycle spec §2.3/§2.4 and the input
// rules of §1.2. Messages are the spec's, byte for byte (§5), including the misleading
// "released resource_id cannot be reused" for an id whose cleanup failed (§7 item 1).
#include "strata/model/cm/lifecycle_state.hpp"

#include <algorithm>

namespace strata::model::lifecycle {
namespace {

bool ascii_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool id_tail(char c) { return ascii_alpha(c) || ascii_digit(c) || c == '.' || c == '_' || c == '-'; }

bool one_of(std::string_view value, std::initializer_list<std::string_view> allowed) {
  return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

const Json* member(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// The string at `key` when it passes `rule`, else nullptr.
const std::string* valid_string(const Json& object, const char* key, bool (*rule)(std::string_view)) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_string()) return nullptr;
  const std::string& text = value->get_ref<const std::string&>();
  return rule(text) ? &text : nullptr;
}

bool is_resource_phase(std::string_view phase) { return one_of(phase, {"acquired", "released", "cleanup_failed"}); }
bool is_test_run_phase(std::string_view phase) {
  return one_of(phase, {"start", "case_start", "case_complete", "case_blocked", "complete"});
}
bool is_case_phase(std::string_view phase) { return one_of(phase, {"case_start", "case_complete", "case_blocked"}); }

// R2-R4 on a row or candidate whose phase already passed R1.
std::optional<std::string> resource_data_error(std::string_view phase, const Json& data) {
  if (valid_string(data, "resource_id", is_lifecycle_id) == nullptr) return "resource events require a valid resource_id";
  if (valid_string(data, "resource_kind", is_kind) == nullptr) return "resource events require a valid resource_kind";
  if (phase == "acquired") {
    const Json* cleanup = member(data, "cleanup_required");
    if (cleanup == nullptr || !cleanup->is_boolean() || !cleanup->get<bool>())
      return "resource acquisition requires cleanup_required: true";
  }
  return std::nullopt;
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

}  // namespace

bool is_lifecycle_id(std::string_view text) {
  return !text.empty() && text.size() <= 128 && (ascii_alpha(text[0]) || ascii_digit(text[0])) &&
         std::all_of(text.begin() + 1, text.end(), id_tail);
}

bool is_kind(std::string_view text) {
  return !text.empty() && text.size() <= 64 && ascii_alpha(text[0]) && std::all_of(text.begin() + 1, text.end(), id_tail);
}

bool is_guarded(std::string_view event) { return one_of(event, {"task_done", "done", "run_done"}); }

std::optional<std::string> input_error(std::string_view event, const std::optional<std::string>& phase, const Json& data) {
  if (event == "resource") {
    if (!phase || !is_resource_phase(*phase)) return "resource events require phase acquired, released, or cleanup_failed";
    return resource_data_error(*phase, data);
  }
  if (event == "test_run" && phase) {
    if (!is_test_run_phase(*phase))
      return "test_run events require phase start, case_start, case_complete, case_blocked, or complete";
    if (is_case_phase(*phase) && valid_string(data, "case_id", is_lifecycle_id) == nullptr)
      return "test_run case events require a valid case_id";
  }
  return std::nullopt;
}

namespace {

// The kind of `id` in packed "<id>\t<kind>\n" lines sorted by id, by binary search over
// byte positions (each probe backs up to the start of its line).
std::optional<std::string_view> find_packed(std::string_view text, std::string_view id) {
  std::size_t low = 0, high = text.size();  // line starts in [low, high)
  while (low < high) {
    std::size_t middle = low + (high - low) / 2;
    while (middle > low && text[middle - 1] != '\n') --middle;
    const std::size_t tab = text.find('\t', middle);
    const std::size_t end = text.find('\n', middle);
    if (tab == std::string_view::npos || end == std::string_view::npos || tab > end) return std::nullopt;
    const std::string_view key = text.substr(middle, tab - middle);
    if (key == id) return text.substr(tab + 1, end - tab - 1);
    if (key < id) low = end + 1;
    else high = middle;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Resource> ResourceState::find(const std::string& id) const {
  if (const auto it = resources_.find(id); it != resources_.end()) return it->second;
  if (const auto kind = find_packed(released_text_, id)) return Resource{"released", std::string(*kind)};
  return std::nullopt;
}

std::optional<std::string> ResourceState::apply(const std::string& phase, const std::string& id, const std::string& kind) {
  const std::optional<Resource> known = find(id);
  if (!known) {
    if (phase != "acquired") return "resource terminal phase has no acquisition";
    resources_.emplace(id, Resource{phase, kind});
    return std::nullopt;
  }
  if (known->kind != kind) return "resource_kind does not match its acquisition";
  if (phase == "acquired") {
    if (known->phase == "acquired") return "active resource_id already has an acquisition; acquire a new resource_id";
    return "released resource_id cannot be reused; acquire a new resource_id";  // also after cleanup_failed (sic)
  }
  if (phase == "cleanup_failed" && known->phase == "released") return "released resource cannot fail cleanup";
  if (known->phase != phase) resources_[id] = Resource{phase, kind};  // (a packed id only meets released again)
  return std::nullopt;
}

std::vector<std::string> ResourceState::open_ids() const {
  std::vector<std::string> ids;  // std::map order is byte order, which is code-point order for UTF-8
  for (const auto& [id, resource] : resources_)
    if (resource.phase != "released") ids.push_back(id);
  return ids;
}

std::map<std::string, Resource> ResourceState::all() const {
  std::map<std::string, Resource> out = resources_;
  for (std::size_t start = 0; start < released_text_.size();) {
    const std::size_t tab = released_text_.find('\t', start), end = released_text_.find('\n', start);
    out.emplace(released_text_.substr(start, tab - start), Resource{"released", released_text_.substr(tab + 1, end - tab - 1)});
    start = end + 1;
  }
  return out;
}

std::map<std::string, Resource> ResourceState::unreleased() const {
  std::map<std::string, Resource> out;
  for (const auto& [id, resource] : resources_)
    if (resource.phase != "released") out.emplace(id, resource);
  return out;
}

std::string ResourceState::released_text() const {
  bool any_new = false;
  for (const auto& [id, resource] : resources_) any_new = any_new || resource.phase == "released";
  if (!any_new) return released_text_;
  std::string out;
  for (const auto& [id, resource] : all())
    if (resource.phase == "released") out += id + "\t" + resource.kind + "\n";
  return out;
}

void ResourceState::restore(std::map<std::string, Resource> unreleased, std::string released_text) {
  resources_ = std::move(unreleased);
  released_text_ = std::move(released_text);
}

std::optional<std::string> TestRunState::apply(const std::string& phase, const std::string& case_id) {
  if (phase == "start") {
    if (active) return "test_run start has no preceding complete";
    if (!open_cases.empty()) return "test_run state contains cases without an active run";
    active = true;
  } else if (phase == "case_start") {
    if (!active) return "test_run case_start has no active test run";
    if (open_cases.count(case_id) != 0) return "test_run case already has an active case_start";
    open_cases.insert(case_id);
  } else if (phase == "case_complete" || phase == "case_blocked") {
    if (!active) return "test_run case terminal phase has no active test run";
    if (open_cases.erase(case_id) == 0) return "test_run case terminal phase has no case_start";
  } else {  // complete
    if (!active) return "test_run complete has no active test run";
    if (!open_cases.empty()) return "test_run complete has unfinished cases";
    active = false;
  }
  return std::nullopt;
}

void RunLifecycle::read_row(const Json& row) {
  const Json* event = member(row, "event");
  if (event == nullptr || !event->is_string()) return;
  const Json* phase = member(row, "phase");
  if (*event == "resource") {
    if (resources_unverifiable) return;
    // A phase that is not a string (even an array or object, where the reference crashes)
    // breaks R1 like an unknown one.
    if (phase == nullptr || !phase->is_string() || !is_resource_phase(phase->get_ref<const std::string&>()) ||
        resource_data_error(phase->get_ref<const std::string&>(), row) ||
        resources.apply(phase->get<std::string>(), row.at("resource_id").get<std::string>(),
                        row.at("resource_kind").get<std::string>()))
      resources_unverifiable = true;
  } else if (*event == "test_run") {
    if (test_run_unverifiable || phase == nullptr || phase->is_null()) return;  // unphased rows are free-form
    if (!phase->is_string() || !is_test_run_phase(phase->get_ref<const std::string&>())) {
      test_run_unverifiable = true;
      return;
    }
    const std::string& name = phase->get_ref<const std::string&>();
    std::string case_id;
    if (is_case_phase(name)) {
      const std::string* id = valid_string(row, "case_id", is_lifecycle_id);
      if (id == nullptr) {
        test_run_unverifiable = true;
        return;
      }
      case_id = *id;
    }
    // A complete met with nothing active is a historical standalone completion (§2.4).
    if (name == "complete" && !test_run.incomplete()) return;
    if (test_run.apply(name, case_id)) test_run_unverifiable = true;
  }
}

std::optional<std::string> resource_block(const ResourceState& state) {
  const auto open = state.open_ids();
  if (open.empty()) return std::nullopt;
  return "completion blocked by unclosed resources: " + joined(open, ", ");
}

std::optional<std::string> test_run_block(const TestRunState& state) {
  if (!state.incomplete()) return std::nullopt;
  std::vector<std::string> parts;
  if (state.active) parts.emplace_back("active invocation");
  if (!state.open_cases.empty())
    parts.push_back("open cases: " + joined({state.open_cases.begin(), state.open_cases.end()}, ", "));
  return "completion blocked by incomplete test_run: " + joined(parts, "; ");
}

}  // namespace strata::model::lifecycle
