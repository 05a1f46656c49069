#pragma once
// Command validation of spec §3.3: where a configured provider command would run from.
#include <string>

namespace strata::exec {

// Resolves `command`: a path (absolute, or relative to `base_directory`) must be an
// executable regular file; a bare name is searched in the non-empty entries of
// `path_variable`. Throws strata::Error with the spec's message otherwise.
std::string resolve_command(const std::string& command, const std::string& base_directory,
                            const std::string& path_variable);

}  // namespace strata::exec
