#pragma once
// The message stream of `qwen -o stream-json` (Qwen Code 0.24.4, docs/AGENT_STREAMS.md §5.5), for
// `strata provider qwen` (issue 47). It is Claude Code's stream-json in shape: a system init event
// listing the tools, assistant messages whose content blocks are text, thinking and tool_use,
// user messages carrying tool_result blocks, and one result event with the answer, the usage and
// the permission denials. ClaudeStreamReader and ClaudeTrajectory read it with this dialect; what
// differs, as measured against the scripted model server:
//   - the answer's tool under --json-schema is structured_output, the answer the result's
//     structured_result;
//   - input_tokens is the whole prompt, cache reads included (cache_read_input_tokens is its cached
//     part); output_tokens includes the reasoning;
//   - the result's usage is every model call of the run, a sub-agent's included (the agent tool,
//     which runs it in the background and waits for it before the result);
//   - the init event names the version qwen_code_version; there is no cost and no modelUsage.
#include "strata/model/agents/claude_stream.hpp"

namespace strata::model {

const ClaudeStreamDialect& qwen_code_dialect();

}  // namespace strata::model
