#include "strata/model/study/shard.hpp"

#include "strata/error.hpp"

namespace strata::model {
namespace {

// A decimal count without sign or spaces, at most 9 digits (far above any shard count).
std::optional<std::size_t> decimal(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  std::size_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  return value;
}

Shard checked(std::size_t index, std::size_t count, const std::string& source) {
  if (count < 1 || count > kMaxShards)
    throw Error("--shard: the shard count must be from 1 to " + std::to_string(kMaxShards) + " (" + source + ")");
  if (index >= count)
    throw Error("--shard: shard index " + std::to_string(index) + " is not below the shard count " + std::to_string(count) +
                " (" + source + "; shards are numbered from 0)");
  return Shard{index, count};
}

std::size_t number_variable(const EnvironmentLookup& variable, const char* name) {
  const std::optional<std::string> text = variable(name);
  if (!text) throw Error(std::string("--shard auto: ") + name + " is not set");
  const std::optional<std::size_t> value = decimal(*text);
  if (!value) throw Error(std::string("--shard auto: ") + name + " is not a non-negative integer: '" + *text + "'");
  return *value;
}

Shard slurm_shard(const EnvironmentLookup& variable) {
  const std::size_t id = number_variable(variable, "SLURM_ARRAY_TASK_ID");
  if (variable("STRATA_SHARD_COUNT"))
    return checked(id, number_variable(variable, "STRATA_SHARD_COUNT"), "SLURM_ARRAY_TASK_ID and STRATA_SHARD_COUNT");
  if (variable("SLURM_ARRAY_TASK_STEP") && number_variable(variable, "SLURM_ARRAY_TASK_STEP") != 1)
    throw Error("--shard auto: the Slurm array has a step other than 1 (SLURM_ARRAY_TASK_STEP); submit --array=0-<N-1>, or set STRATA_SHARD_COUNT");
  const std::size_t min = number_variable(variable, "SLURM_ARRAY_TASK_MIN");
  std::optional<std::size_t> count;
  if (variable("SLURM_ARRAY_TASK_COUNT")) count = number_variable(variable, "SLURM_ARRAY_TASK_COUNT");
  if (variable("SLURM_ARRAY_TASK_MAX")) {
    const std::size_t max = number_variable(variable, "SLURM_ARRAY_TASK_MAX");
    if (max < min || (count && *count != max - min + 1))
      throw Error("--shard auto: SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_MAX and SLURM_ARRAY_TASK_COUNT disagree; set STRATA_SHARD_COUNT");
    count = max - min + 1;
  }
  if (!count) throw Error("--shard auto: neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX is set; set STRATA_SHARD_COUNT");
  if (id < min) throw Error("--shard auto: SLURM_ARRAY_TASK_ID is below SLURM_ARRAY_TASK_MIN");
  // An array of one task is most often one index re-submitted (`sbatch --array=2`): taken as
  // shard 0 of 1 it would run the whole plan into that shard's ledger.
  if (*count == 1)
    throw Error("--shard auto: the Slurm array has one task (a re-submitted index?); set STRATA_SHARD_COUNT to the number of shards, "
                "or pass --shard I/N");
  return checked(id - min, *count, "from the Slurm array: SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT");
}

}  // namespace

Shard parse_shard(std::string_view spec) {
  const std::size_t slash = spec.find('/');
  const auto index = decimal(spec.substr(0, slash));
  const auto count = slash == std::string_view::npos ? std::nullopt : decimal(spec.substr(slash + 1));
  if (!index || !count) throw Error("--shard must be I/N (shard I of N, from 0, for example 0/4) or auto; got '" + std::string(spec) + "'");
  return checked(*index, *count, "--shard " + std::string(spec));
}

Shard shard_from_environment(const EnvironmentLookup& variable) {
  const bool slurm = variable("SLURM_ARRAY_TASK_ID").has_value();
  const bool kubernetes = variable("JOB_COMPLETION_INDEX").has_value();
  if (slurm && kubernetes)
    throw Error("--shard auto: both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set; pass --shard I/N");
  if (kubernetes) {
    const std::size_t index = number_variable(variable, "JOB_COMPLETION_INDEX");
    if (!variable("STRATA_SHARD_COUNT"))
      throw Error("--shard auto: JOB_COMPLETION_INDEX is set but STRATA_SHARD_COUNT is not (set it to the Job's completions)");
    return checked(index, number_variable(variable, "STRATA_SHARD_COUNT"), "JOB_COMPLETION_INDEX and STRATA_SHARD_COUNT");
  }
  if (slurm) return slurm_shard(variable);
  throw Error(
      "--shard auto: no Slurm job array task (SLURM_ARRAY_TASK_ID) and no Kubernetes Indexed Job (JOB_COMPLETION_INDEX) in the "
      "environment; pass --shard I/N");
}

}  // namespace strata::model
