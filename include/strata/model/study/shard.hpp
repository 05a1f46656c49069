#pragma once
// A shard of a run or an adjudication (issue 17, docs/SCALE-OUT.md): the selection split into N
// parts round-robin over the selection order, so every shard gets a balanced mix of arms and the
// shards together are the selection, each element exactly once. Pure: the environment of
// `--shard auto` is passed in.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace strata::model {

struct Shard {
  std::size_t index = 0, count = 1;  // 0 <= index < count
  // Whether the element at `position` (0-based, in selection order) belongs to this shard.
  bool holds(std::size_t position) const { return position % count == index; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

constexpr std::size_t kMaxShards = 100000;

// "I/N" (decimal, 0 <= I < N <= kMaxShards). Throws strata::Error saying what is wrong.
Shard parse_shard(std::string_view spec);

// `--shard auto`: the shard a Slurm job array task or a Kubernetes Indexed Job pod is.
//  - Slurm: I = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN, N = SLURM_ARRAY_TASK_COUNT (or
//    MAX - MIN + 1), the step 1; but with STRATA_SHARD_COUNT set, N = STRATA_SHARD_COUNT and I =
//    SLURM_ARRAY_TASK_ID itself, so a re-submitted single index (`sbatch --array=2`) is shard 2.
//  - Kubernetes: I = JOB_COMPLETION_INDEX, N = STRATA_SHARD_COUNT (required: a pod does not see
//    its Job's completions).
// `variable` gives an environment variable's value, or nullopt when unset. Anything missing,
// malformed or inconsistent throws strata::Error naming the variables: never a silent 0/1.
using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;
Shard shard_from_environment(const EnvironmentLookup& variable);

}  // namespace strata::model
