#include "strata/workspace/workspace_settings.hpp"

#include "strata/error.hpp"

namespace strata::workspace {

const char* mode_name(WorkspaceMode mode) {
  switch (mode) {
    case WorkspaceMode::copy: return "copy";
    case WorkspaceMode::overlay: return "overlay";
    case WorkspaceMode::none: break;
  }
  return "none";
}

WorkspaceMode parse_mode(const std::string& text) {
  if (text == "none") return WorkspaceMode::none;
  if (text == "copy") return WorkspaceMode::copy;
  if (text == "overlay") return WorkspaceMode::overlay;
  throw Error("--workspace must be none, copy or overlay, not '" + text + "'");
}

}  // namespace strata::workspace
