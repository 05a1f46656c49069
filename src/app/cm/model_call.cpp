#include "strata/app/cm/model_call.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "strata/error.hpp"
#include "strata/model/cm/cm_packet.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/net/endpoint_client.hpp"
#include "strata/net/endpoint_url.hpp"
#include "strata/net/https_client.hpp"
#include "strata/store/event_log.hpp"

namespace strata::app {
namespace {

namespace cm = model::cm;
using model::Json;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxPacketBytes = 1024 * 1024;
constexpr std::size_t kMaxResponseBytes = 8 * 1024 * 1024;

// Thrown for a rejection before any HTTP (exit 2).
struct Rejected {
  std::string message;
};

std::string env_value(const std::map<std::string, std::string>& env, const char* name) {
  const auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

bool printable_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x21 && c <= 0x7E; });
}

void check_flags(const CallOptions& o) {
  for (const auto& [name, value] : {std::pair{"--workflow", &o.workflow}, {"--stage", &o.stage}, {"--role", &o.role}})
    if (!cm::is_identifier(*value)) throw Rejected{std::string(name) + " is not a valid identifier"};
  if (!cm::is_model_name(o.requested_model)) throw Rejected{"--requested-model is not a valid model alias"};
  if (!cm::is_call_id(o.call_id)) throw Rejected{"--call-id is not valid"};
  if (o.run_id && !cm::is_run_id(*o.run_id)) throw Rejected{"--run-id is not valid"};
  std::error_code ec;
  if (!std::filesystem::is_directory(o.project_root, ec)) throw Rejected{"--project-root is not an existing directory"};
  if (o.specs_dir && !std::filesystem::is_directory(*o.specs_dir, ec)) throw Rejected{"--specs-dir is not an existing directory"};
  if (!o.specs_dir && !o.run_id) throw Rejected{"--run-id is required without --specs-dir"};
}

// §1.3 in order; returns the chat-completions endpoint.
std::string check_environment(const std::map<std::string, std::string>& env, std::string& api_key) {
  std::string enabled = env_value(env, "CM_OPENAI_COMPATIBLE_ENABLED");
  for (char& c : enabled) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (enabled != "true")
    throw Rejected{"OpenAI-compatible calls are not explicitly enabled; set CM_OPENAI_COMPATIBLE_ENABLED=true"};
  const std::string base = env_value(env, "CM_OPENAI_COMPATIBLE_BASE_URL");
  if (base.empty()) throw Rejected{"CM_OPENAI_COMPATIBLE_BASE_URL is not configured"};
  if (!printable_ascii(base)) throw Rejected{"CM_OPENAI_COMPATIBLE_BASE_URL contains unsupported characters"};
  api_key = env_value(env, "CM_OPENAI_COMPATIBLE_API_KEY");
  if (api_key.empty()) throw Rejected{"CM_OPENAI_COMPATIBLE_API_KEY is not configured"};
  if (api_key.size() > 4096 || !printable_ascii(api_key)) throw Rejected{"API key contains unsupported characters"};
  const auto scheme_end = base.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : base.substr(0, scheme_end);
  std::string lower_scheme = scheme;
  for (char& c : lower_scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto url = net::parse_url(base);
  if (!url && (lower_scheme == "http" || lower_scheme == "https"))
    throw Rejected{"CM_OPENAI_COMPATIBLE_BASE_URL must be a valid HTTP(S) URL"};
  if (!url || url->host.empty()) throw Rejected{"CM_OPENAI_COMPATIBLE_BASE_URL must be an HTTP(S) URL"};
  if (url->has_userinfo || url->has_query || url->has_fragment)
    throw Rejected{"CM_OPENAI_COMPATIBLE_BASE_URL cannot contain credentials or query data"};
  if (url->scheme == "http" && !net::is_loopback_host(url->host))
    throw Rejected{"non-loopback OpenAI-compatible endpoints require HTTPS"};
  return net::chat_completions_endpoint(base);
}

ManagedCall managed_call(const CallOptions& o) {
  return ManagedCall{o.workflow, o.stage, o.role, o.requested_model, o.call_id};
}

// §1.5: the claim's outcome; throws Rejected when the call must not go ahead.
void claim(const CallOptions& o, const EventWriter& write_event) {
  EventWriteResult r;
  try {
    r = write_event(claim_event(managed_call(o)));
  } catch (const std::exception&) {
    throw Rejected{"model call claim could not be recorded"};
  }
  if (const auto refusal = claim_refusal(r)) throw Rejected{*refusal};
}

struct Attempt {
  std::optional<Json> response;  // parsed response object, when there was one
  std::optional<std::string> text;
  std::string failure;  // stderr message when the call failed
  double duration_ms = 0;
};

net::HttpResponse send(const std::string& endpoint, const std::string& api_key, const std::string& body, int timeout_seconds,
                       const std::string& ca_file) {
  net::HttpsClient client(ca_file);
  net::HttpRequest request;
  request.url = endpoint;
  request.headers = net::chat_completions_headers(api_key, "strata-call");
  request.body = body;
  request.timeout = std::chrono::seconds(timeout_seconds);
  request.max_body_bytes = kMaxResponseBytes;
  boost::asio::io_context io(1);
  auto future = boost::asio::co_spawn(io, client.send(std::move(request)), boost::asio::use_future);
  io.run();
  return future.get();
}

Attempt call_provider(const std::string& endpoint, const std::string& api_key, const std::string& body, int timeout_seconds,
                      const std::string& ca_file) {
  Attempt a;
  const auto started = Clock::now();
  const auto elapsed = [&] {
    return std::max(0.0, std::round(std::chrono::duration<double, std::milli>(Clock::now() - started).count()));
  };
  try {
    const net::HttpResponse http = send(endpoint, api_key, body, timeout_seconds, ca_file);
    if (http.failure == net::HttpFailure::body_too_large) {
      a.failure = "provider response exceeds 8 MiB";
    } else if (!http.ok()) {
      a.failure = "request failed";
    } else if (http.status < 200 || http.status > 299) {
      a.failure = "HTTP " + std::to_string(http.status);
    } else {
      Json parsed = cm::parse_strict(http.body, "provider response");
      if (!parsed.is_object()) throw Error("provider response must be a JSON object");
      a.response = std::move(parsed);
      a.text = cm::completion_text(*a.response);
    }
  } catch (const Error& e) {
    a.failure = e.what();
  } catch (const std::exception&) {
    a.failure = "response handling failed";
  }
  a.duration_ms = elapsed();
  return a;
}

// §1.9: true when the usage event was recorded.
bool record_usage(const CallOptions& o, const Attempt& a, bool success, const EventWriter& write_event,
                  const std::string& api_key) {
  try {
    CallResult result;
    result.success = success;
    describe_response(a.response ? &*a.response : nullptr, api_key, result);
    result.duration_ms = static_cast<std::int64_t>(a.duration_ms);
    const EventWriteResult r = write_event(usage_event(managed_call(o), result));
    return r.exit_code == 0;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::string resolved_path(const std::string& path) {
  std::string expanded = path;
  if (!expanded.empty() && expanded[0] == '~') {
    const char* home = std::getenv("HOME");
    expanded = std::string(home ? home : "") + expanded.substr(1);
  }
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(expanded, ec);
  const auto canonical = std::filesystem::weakly_canonical(absolute, ec);
  return (ec ? absolute : canonical).string();
}

EventWriteResult write_event_log(const EventLogTarget& target, const EventWrite& write) {
  store::LogEventArgs args;
  args.workflow = target.workflow;
  args.event = write.event;
  args.phase = write.phase;
  args.runtime = target.runtime;
  args.project_root = target.project_root;
  args.specs_dir = target.specs_dir;
  args.run_id = target.run_id;
  args.detail = write.detail;
  args.data_json = write.data_json;
  const store::LogEventOutcome r = store::log_event(args);
  EventWriteResult result{r.exit_code, r.stdout_line, {}};
  for (const auto& line : r.stderr_lines) result.stderr_text += "cm-log-event: " + line + "\n";
  return result;
}

void describe_response(const Json* response, const std::string& api_key, CallResult& result) {
  result.usage = cm::extract_usage(response);
  if (response != nullptr) result.effective_model = cm::effective_model(*response);
  if (result.effective_model && !api_key.empty() && result.effective_model->find(api_key) != std::string::npos)
    result.effective_model.reset();
}

EventWrite claim_event(const ManagedCall& call) {
  const Json data = {{"call_id", call.call_id},
                     {"stage", call.stage},
                     {"role", call.role},
                     {"adapter", "openai-compatible"},
                     {"requested_model", call.requested_model},
                     {"source", "api"},
                     {"purpose", call.workflow + ":" + call.stage}};
  return EventWrite{"model_call", "claimed", call.role + " model call claimed", model::compact_json(data)};
}

EventWrite usage_event(const ManagedCall& call, const CallResult& result) {
  const std::string outcome = result.success ? "success" : "error";
  const cm::Usage& usage = result.usage;
  Json data = {{"call_id", call.call_id},
               {"stage", call.stage},
               {"role", call.role},
               {"adapter", "openai-compatible"},
               {"requested_model", call.requested_model},
               {"source", "api"},
               {"purpose", call.workflow + ":" + call.stage},
               {"usage_state", usage.observed ? "observed" : "unavailable"},
               {"duration_ms", std::max<std::int64_t>(0, result.duration_ms)},
               {"outcome", outcome}};
  if (result.effective_model) data["effective_model"] = *result.effective_model;
  if (usage.observed) {
    data["input_tokens"] = usage.input_tokens;
    data["output_tokens"] = usage.output_tokens;
    if (usage.cache_read_tokens) data["cache_read_tokens"] = *usage.cache_read_tokens;
    if (usage.cache_write_tokens) data["cache_write_tokens"] = *usage.cache_write_tokens;
  }
  if (result.attempt) data["attempt"] = *result.attempt;
  if (result.task) data["task"] = *result.task;
  return EventWrite{"model_usage", "complete", call.role + " model call " + outcome, model::compact_json(data)};
}

std::optional<std::string> claim_refusal(const EventWriteResult& r) {
  if (r.exit_code != 0) {
    if (r.stderr_text.find("model_call call_id already completed") != std::string::npos)
      return "call_id already completed; use a new call_id";
    if (r.stderr_text.find("model_call call_id already claimed") != std::string::npos)
      return "call_id already claimed; use a new call_id";
    return "model call claim could not be recorded";
  }
  const Json evidence = Json::parse(r.stdout_line, nullptr, false);
  if (!evidence.is_object() || !evidence.contains("deduplicated") || !evidence["deduplicated"].is_boolean())
    return "model call claim returned invalid evidence";
  if (evidence["deduplicated"].get<bool>()) return "call_id already claimed; use a new call_id";
  return std::nullopt;
}

CallOutcome perform_model_call(const CallOptions& options, const std::map<std::string, std::string>& environment,
                               const std::function<std::string(std::size_t limit)>& read_stdin,
                               const EventWriter& write_event, const std::function<bool(const std::string&)>& write_stdout,
                               const std::string& ca_file) {
  CallOutcome outcome;
  std::string endpoint, api_key, body;
  try {
    check_flags(options);
    endpoint = check_environment(environment, api_key);
    const std::string packet = read_stdin(kMaxPacketBytes + 1);
    if (packet.size() > kMaxPacketBytes) throw Rejected{"role packet exceeds 1 MiB"};
    try {
      const cm::RoleMessages messages =
          cm::role_messages(cm::parse_strict(packet, "stdin"), options.workflow, options.stage, options.role);
      body = cm::request_body(options.requested_model, messages);
    } catch (const Error& e) {
      throw Rejected{e.what()};
    }
    claim(options, write_event);
  } catch (const Rejected& r) {
    outcome.exit_code = 2;
    outcome.messages.push_back(r.message);
    return outcome;
  }

  const Attempt attempt = call_provider(endpoint, api_key, body, options.timeout_seconds, ca_file);
  std::string failure = attempt.failure;
  if (failure.empty() && !write_stdout(*attempt.text + "\n")) failure = "result output failed";
  const bool succeeded = failure.empty();
  const bool logged = record_usage(options, attempt, succeeded, write_event, api_key);
  if (succeeded) {
    outcome.exit_code = logged ? 0 : 3;
    if (!logged)
      outcome.messages.push_back("model call completed but usage log failed; do not retry the model call automatically");
    return outcome;
  }
  outcome.messages.push_back(failure);
  if (!logged) outcome.messages.push_back("usage log failed");
  outcome.exit_code = logged ? 1 : 4;
  return outcome;
}

}  // namespace strata::app
