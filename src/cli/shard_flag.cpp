#include "shard_flag.hpp"

#include <cstdlib>

namespace strata::cli {

void add_shard_flag(CLI::App& command, std::string& spec, const std::string& what) {
  command
      .add_option("--shard", spec,
                  "I/N: only shard I of N (from 0) of the selected " + what + ", round-robin over the selection; "
                  "auto: I and N from a Slurm job array or a Kubernetes Indexed Job (docs/SCALE-OUT.md)")
      ->group("Scale-out");
}

std::optional<model::Shard> shard_of(const std::string& spec) {
  if (spec.empty()) return std::nullopt;
  if (spec != "auto") return model::parse_shard(spec);
  return model::shard_from_environment([](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

}  // namespace strata::cli
