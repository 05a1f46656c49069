#pragma once
// --shard I/N|auto of `strata run` and `strata adjudicate` (issue 17, docs/SCALE-OUT.md).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "strata/model/study/shard.hpp"

namespace strata::cli {

// Adds --shard to `command`, its value kept in `spec`; `what` names what is split ("executions").
void add_shard_flag(CLI::App& command, std::string& spec, const std::string& what);

// The shard `spec` names (nullopt when --shard was not given); `auto` reads this process's
// environment. Throws strata::Error (exit 2) for a spec or environment that names no shard.
std::optional<model::Shard> shard_of(const std::string& spec);

}  // namespace strata::cli
