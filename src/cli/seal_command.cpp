// strata seal <kind> <payload.json> [-o out.json]: validate a payload, materialise its
// defaults and add contentHashAlgo + contentHash.
#include <memory>

#include "command.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/verification.hpp"
#include "strata/store/artifact_file.hpp"

namespace strata::cli {
namespace {

struct SealOptions {
  std::string kind;
  std::string payload;
  std::string output;
};

const char* const kSealKinds[] = {"provider-config", "repository-config", "task-suite", "run-plan", "ledger",
                                  "observation", "protocol", "verifier-config"};

model::Json seal(const model::ArtifactSpec& spec, const std::string& path) {
  model::Json payload = store::read_json_file(path);
  try {
    // An already sealed file is re-sealed: its old seal members are replaced.
    if (payload.is_object()) {
      payload.erase("contentHash");
      payload.erase("contentHashAlgo");
    }
    model::Json sealed = model::create_artifact(spec.kind, std::move(payload));
    // A ledger is only as good as its observations: refuse to seal corrupt ones.
    if (spec.kind == model::ArtifactKind::ledger)
      for (const auto& mismatch : model::observation_mismatches(sealed))
        throw Error("Invalid controlled observation content hash. (computed " + mismatch.computed + ")", mismatch.path);
    return sealed;
  } catch (const Error& e) {
    throw at_file(path, e);
  }
}

}  // namespace

void add_seal_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<SealOptions>();
  auto* sub = app.add_subcommand("seal", "Seal a payload: validate it, materialise defaults, add the content hash");
  sub->footer(
      "Kinds: provider-config, repository-config, task-suite, run-plan, ledger, observation, protocol,\n"
      "verifier-config (Strata's own: how strata run --verify runs the checks, docs/VERIFIER.md).\n"
      "An already sealed file is re-sealed (its contentHash and contentHashAlgo are replaced).\n"
      "Nothing is written when the payload is invalid.");
  sub->add_option("kind", options->kind, "Artifact kind")->required()->check(CLI::IsMember(std::vector<std::string>(
                                                                            std::begin(kSealKinds), std::end(kSealKinds))));
  sub->add_option("payload", options->payload, "The unsealed payload (JSON)")->required();
  sub->add_option("-o,--output", options->output, "Write the sealed artifact here instead of stdout");
  sub->callback([&action, options] {
    action = [options] {
      const model::ArtifactSpec* spec = model::find_artifact_by_name(options->kind);
      const model::Json sealed = seal(*spec, options->payload);
      const std::string text = model::pretty_json(sealed) + "\n";
      if (options->output.empty()) {
        print_lines({model::pretty_json(sealed)});
      } else {
        store::write_file_atomically(options->output, text);
      }
      return 0;
    };
  });
}

}  // namespace strata::cli
