#include "strata/model/agents/qwen_stream.hpp"

namespace strata::model {

const ClaudeStreamDialect& qwen_code_dialect() {
  static const ClaudeStreamDialect dialect{"qwen-code", "qwen_code_version", "structured_output", "structured_result", {"agent"}, true, true};
  return dialect;
}

}  // namespace strata::model
