#include "strata/engine/attempt_outcome.hpp"

#include <cstring>
#include <string>

#include "strata/error.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/utf.hpp"

namespace strata::engine {
namespace {

std::string signal_name(int number) {
  const char* abbreviation = ::sigabbrev_np(number);
  return abbreviation ? std::string("SIG") + abbreviation : "SIG" + std::to_string(number);
}

}  // namespace

bool is_one_json_text(const std::string& text) {
  try {
    model::parse_json(text);
    return true;
  } catch (const Error&) {
    return false;
  }
}

model::AttemptRecord attempt_record(const exec::ProcessResult& result, std::size_t output_limit) {
  model::AttemptRecord record;
  record.duration_ms = static_cast<double>(result.duration.count());
  record.stderr_bytes = static_cast<double>(result.stderr_bytes);
  record.stderr_hash = result.stderr_sha256;
  // Raw bytes are decoded as UTF-8 (ill-formed bytes become U+FFFD) before anything else.
  record.stdout_text = model::sanitize_utf8(result.stdout_data);
  switch (result.end) {
    case exec::ProcessEnd::timed_out:
      record.status = "timed-out";
      record.signal = "SIGTERM";
      record.error_code = "timeout";
      break;
    case exec::ProcessEnd::output_limit:
      record.status = "budget-exceeded";
      record.signal = "SIGTERM";
      record.error_code = "output-limit";
      record.stdout_text = model::truncate_utf16(record.stdout_text, output_limit);
      break;
    case exec::ProcessEnd::spawn_failed:
      record.status = "unavailable";
      record.error_code = "unavailable";
      record.stdout_text.clear();
      break;
    case exec::ProcessEnd::signaled:
      record.status = "failed";
      record.signal = signal_name(result.term_signal);
      record.error_code = "non-zero-exit";
      break;
    case exec::ProcessEnd::exited:
      record.exit_code = result.exit_code;
      if (result.exit_code != 0) {
        record.status = "failed";
        record.error_code = "non-zero-exit";
      } else if (is_one_json_text(record.stdout_text)) {
        record.status = "completed";
      } else {
        record.status = "invalid-output";
        record.error_code = "invalid-json";
      }
      break;
  }
  return record;
}

}  // namespace strata::engine

namespace strata::engine {

model::JudgeRecord judge_record(const exec::ProcessResult& result) {
  model::JudgeRecord judge;
  judge.duration_ms = static_cast<double>(result.duration.count());
  judge.stdout_text = model::sanitize_utf8(result.stdout_data);
  switch (result.end) {
    case exec::ProcessEnd::timed_out: judge.status = "timed-out"; break;
    case exec::ProcessEnd::output_limit: judge.status = "budget-exceeded"; break;
    case exec::ProcessEnd::spawn_failed:
    case exec::ProcessEnd::signaled: judge.status = "unavailable"; break;
    case exec::ProcessEnd::exited:
      judge.status = result.exit_code != 0 ? "unavailable" : is_one_json_text(judge.stdout_text) ? "completed" : "invalid-output";
      break;
  }
  return judge;
}

model::JudgeRecord judge_record(const model::AttemptRecord& attempt) {
  model::JudgeRecord judge;
  judge.duration_ms = attempt.duration_ms;
  judge.stdout_text = attempt.stdout_text;
  judge.status = attempt.status == "failed" ? "unavailable" : attempt.status;
  return judge;
}

}  // namespace strata::engine
