#include "strata/app/endpoints/hosted_endpoints.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "strata/app/endpoints/endpoint_usage_log.hpp"
#include "strata/engine/attempt_outcome.hpp"
#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/model/cm/cm_packet.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/study/endpoint_request.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/model/json/utf.hpp"
#include "strata/net/endpoint_client.hpp"
#include "strata/net/endpoint_url.hpp"
#include "strata/store/event_log.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::app {
namespace {

using model::Json;

using model::str;

// "Endpoint provider <modelId>" or "Endpoint adjudicator <id>".
std::string entry_name(const Json& entry) {
  return entry.contains("id") ? "Endpoint adjudicator " + str(entry["id"]) : "Endpoint provider " + str(entry["modelId"]);
}

// The value of the variable an endpoint names; the message names the variable only.
std::string required_variable(const Json& provider, const char* member) {
  const std::string& name = str(provider["endpoint"][member]);
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || *value == '\0')
    throw Error(entry_name(provider) + ": environment variable " + name + " is not set.");
  return value;
}

net::EndpointSettings settings_for(const Json& provider, std::chrono::milliseconds deadline) {
  const Json& endpoint = provider["endpoint"];
  net::EndpointSettings settings;
  settings.base_url = required_variable(provider, "baseUrlEnv");
  if (const auto problem = net::base_url_problem(settings.base_url)) {
    const std::string where = entry_name(provider) + ": " + str(endpoint["baseUrlEnv"]);
    switch (*problem) {
      case net::BaseUrlProblem::not_http_url: throw Error(where + " is not an http(s) URL.");
      case net::BaseUrlProblem::credentials_or_query: throw Error(where + " cannot contain credentials or query data.");
      case net::BaseUrlProblem::plain_http_to_remote:
        throw Error(where + " must use https (plain http only to a loopback host).");
    }
  }
  settings.api_key = required_variable(provider, "apiKeyEnv");
  settings.user_agent = "strata-run";
  settings.max_concurrency = static_cast<int>(endpoint.value("maxConcurrency", 8.0));
  settings.requests_per_minute = static_cast<int>(endpoint.value("requestsPerMinute", 0.0));
  settings.transport_retries = static_cast<int>(endpoint["transportRetries"].get<double>());
  settings.deadline = deadline;
  return settings;
}

// An answer with status 2xx: the attempt record (the model's text is the provider's
// stdout) and, for the usage log, the parsed response and whether it had a completion text.
struct Answer {
  model::AttemptRecord record;
  std::optional<Json> response;  // the response body, when it parsed as a JSON object
  bool has_text = false;         // choices[0].message.content was text
};

Answer completed_answer(const net::EndpointResult& result, std::size_t output_limit) {
  Answer answer;
  model::AttemptRecord& record = answer.record;
  try {
    Json parsed = model::cm::parse_strict(result.response.body, "provider response");
    if (parsed.is_object()) answer.response = std::move(parsed);
    record.stdout_text = model::cm::completion_text(answer.response ? *answer.response : Json());
    answer.has_text = true;
  } catch (const Error&) {
    record.status = "invalid-output";
    record.error_code = "invalid-json";
    record.stdout_text = model::sanitize_utf8(result.response.body.substr(0, output_limit));
    return answer;
  }
  const model::cm::Usage usage = model::cm::extract_usage(&*answer.response);
  if (usage.observed) {
    model::AttemptRecord::Usage measured{static_cast<double>(usage.input_tokens), static_cast<double>(usage.output_tokens), {}};
    if (usage.cache_read_tokens) measured.cached_input_tokens = static_cast<double>(*usage.cache_read_tokens);
    record.measured_usage = measured;
  }
  if (record.stdout_text.size() > output_limit) {
    record.status = "budget-exceeded";
    record.error_code = "output-limit";
    record.stdout_text = model::truncate_utf16(record.stdout_text, output_limit);
    return answer;
  }
  if (engine::is_one_json_text(record.stdout_text)) {
    record.status = "completed";
  } else {
    record.status = "invalid-output";
    record.error_code = "invalid-json";
  }
  return answer;
}

// Everything else: no usable answer (docs/ENDPOINTS.md, "Outcomes").
model::AttemptRecord failed_record(const net::EndpointResult& result) {
  model::AttemptRecord record;
  switch (result.failure) {
    case net::EndpointFailure::deadline:
      record.status = "timed-out";
      record.error_code = "timeout";
      break;
    case net::EndpointFailure::transport:
      record.status = "unavailable";
      record.error_code = "unavailable";
      break;
    case net::EndpointFailure::rate_limited:
      record.status = "failed";
      record.error_code = "rate-limited";
      break;
    case net::EndpointFailure::none:
      record.status = "failed";
      record.error_code = "http-" + std::to_string(result.response.status);
      break;
  }
  return record;
}

// The first 16 hex digits of the execution's session id (its run id and recorded task):
// the calls of an execution, and the judgement of its observation, share it.
std::string execution_digest(const EndpointAttempt& call) {
  if (call.run_id == nullptr || call.task == nullptr) return "call";
  return model::session_id(*call.run_id, *call.task).substr(0, 16);
}

// What the usage event says of an attempt (usage-boundary §1.9): "success" when the endpoint
// answered 2xx with a completion text (what the run then makes of the text is the ledger's
// business); the response's usage whenever a response object was parsed.
CallResult call_result(const EndpointAttempt& call, const Answer& answer, const std::string& api_key) {
  CallResult result;
  result.success = answer.has_text;
  describe_response(answer.response ? &*answer.response : nullptr, api_key, result);
  result.duration_ms = static_cast<std::int64_t>(answer.record.duration_ms);
  result.attempt = call.attempt;
  if (call.task != nullptr && call.task->contains("taskId") && (*call.task)["taskId"].is_string()) {
    const std::string& task = str((*call.task)["taskId"]);
    if (store::is_short_event_text(task)) result.task = task;
  }
  return result;
}

}  // namespace

std::vector<const Json*> endpoint_providers(const RunPreflight& preflight) {
  std::vector<const Json*> entries;
  for (const auto& execution : preflight.executions) {
    const Json* provider = execution.provider;
    if (provider != nullptr && provider->contains("endpoint") &&
        std::find(entries.begin(), entries.end(), provider) == entries.end())
      entries.push_back(provider);
  }
  return entries;
}

HostedEndpoints::HostedEndpoints(const std::vector<const Json*>& entries, std::chrono::milliseconds attempt_deadline,
                                 EndpointUsageLog* usage_log)
    : usage_log_(usage_log) {
  // Entries that reach the same endpoint (base URL and key) share one client, so its limits
  // hold for the endpoint as a whole: the smallest concurrency and pace among them.
  std::map<std::pair<std::string, std::string>, net::EndpointSettings> endpoints;
  std::map<const Json*, std::pair<std::string, std::string>> endpoint_of;
  for (const Json* entry : entries) {
    if (!entry->contains("endpoint")) continue;
    net::EndpointSettings settings = settings_for(*entry, attempt_deadline);
    std::pair<std::string, std::string> key{settings.base_url, settings.api_key};
    endpoint_of[entry] = key;
    if (usage_log_ != nullptr) keys_[entry] = settings.api_key;
    const auto [it, added] = endpoints.emplace(key, settings);
    if (added) continue;
    net::EndpointSettings& shared = it->second;
    shared.max_concurrency = std::min(shared.max_concurrency, settings.max_concurrency);
    if (settings.requests_per_minute > 0 &&
        (shared.requests_per_minute == 0 || settings.requests_per_minute < shared.requests_per_minute))
      shared.requests_per_minute = settings.requests_per_minute;
  }
  std::map<std::pair<std::string, std::string>, std::shared_ptr<net::EndpointClient>> clients;
  for (auto& [key, settings] : endpoints) clients[key] = std::make_shared<net::EndpointClient>(std::move(settings));
  for (const auto& [entry, key] : endpoint_of) clients_[entry] = clients[key];
}

HostedEndpoints::~HostedEndpoints() = default;

void HostedEndpoints::close() {
  for (auto& [entry, client] : clients_) client.reset();
}

boost::asio::awaitable<model::AttemptRecord> HostedEndpoints::attempt(EndpointAttempt call) {
  const auto client = clients_.find(call.provider);
  if (client == clients_.end() || !client->second) throw Error("No endpoint client for provider " + str((*call.provider)["modelId"]) + ".");
  const Json& endpoint = (*call.provider)["endpoint"];
  std::string body = model::endpoint_request_body(call.role, endpoint, call.request);
  std::optional<ManagedCall> managed;
  if (usage_log_ != nullptr) {
    // The claim comes first: if it cannot be recorded this throws and nothing is sent.
    managed = ManagedCall{model::kEndpointWorkflow, model::endpoint_stage(call.role), model::endpoint_role_name(call.role),
                          str(endpoint["model"]), usage_log_->next_call_id(execution_digest(call), call.attempt)};
    co_await usage_log_->claim(*managed);
  }
  const auto started = std::chrono::steady_clock::now();
  const net::EndpointResult result = co_await client->second->post_chat_completion(std::move(body));
  Answer answer;
  if (result.ok()) {
    answer = completed_answer(result, call.output_limit);
  } else {
    answer.record = failed_record(result);
  }
  model::AttemptRecord& record = answer.record;
  record.duration_ms = static_cast<double>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count());
  record.stderr_hash = model::sha256_hex("");  // no stderr: the hash of nothing, like a silent process
  if (managed) {
    // Named, not temporaries of the co_await expression (g++ 12 destroys some of those twice).
    const auto key = keys_.find(call.provider);
    static const std::string kNoKey;
    const CallResult logged = call_result(call, answer, key == keys_.end() ? kNoKey : key->second);
    co_await usage_log_->complete(*managed, logged);
  }
  // Strata's own shortage of descriptors is not the endpoint's outcome: the run stops instead.
  if (result.response.failure == net::HttpFailure::descriptors)
    exec::stop_out_of_descriptors("cannot reach an endpoint (" + result.response.detail + ")");
  co_return std::move(answer.record);
}

}  // namespace strata::app
