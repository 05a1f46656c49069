#pragma once
// How `strata run` gives each execution its repository (issue 26, docs/WORKSPACES.md):
// `--workspace none|copy|overlay`, `--confine`, `--confine-network none`,
// `--keep-workspace-diff DIR`. Plain data.
#include <optional>
#include <string>
#include <vector>

namespace strata::workspace {

enum class WorkspaceMode { none, copy, overlay };

struct WorkspaceSettings {
  WorkspaceMode mode = WorkspaceMode::none;
  bool confine = false;          // run each provider under bubblewrap
  bool network_none = false;     // --confine-network none: its own empty network namespace
  std::optional<std::string> diff_directory;  // --keep-workspace-diff: one patch per execution
  std::vector<std::string> shown;  // --confine-show: more directories a confined provider sees, read-only

  bool isolated() const { return mode != WorkspaceMode::none; }
};

// "none", "copy", "overlay".
const char* mode_name(WorkspaceMode mode);
// Throws strata::Error naming the flag for anything else.
WorkspaceMode parse_mode(const std::string& text);

}  // namespace strata::workspace
