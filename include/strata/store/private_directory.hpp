#pragma once
// A directory only its owner may enter (mode 0700): where Strata keeps what no other user, and no
// provider, should read (workspaces, prepared layers, verifier outputs, trajectories and their
// channels).
#include <string>

namespace strata::store {

// Makes `path` (its parent must exist) unless it exists already, which is taken as it is. Throws
// strata::Error located at `path`: "cannot make <what>: <reason>".
void make_private_directory(const std::string& path, const std::string& what = "the directory");

}  // namespace strata::store
