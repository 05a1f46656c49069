#include "strata/model/study/verifier_config_shape.hpp"

namespace strata::model {

ShapePtr verifier_config_payload() {
  const auto identifier = [] { return text(TextRule::identifier); };
  const auto milliseconds = [] { return integer(1, 86400000); };
  const auto output_bytes = [] { return integer(1, 16 * 1024 * 1024); };
  const auto processes = [] { return integer(8, 65536); };  // the launcher and the sandbox take about 4
  auto defaults = object({optional("timeoutMs", milliseconds()), optional("maxOutputBytes", output_bytes()),
                          optional("maxProcesses", processes())});
  // A check of the suite, named by task and check id; every member beyond them is optional.
  auto check = object({required("taskId", identifier()), required("checkId", identifier()),
                       optional("command", text(TextRule::command)), optional("timeoutMs", milliseconds()),
                       optional("maxOutputBytes", output_bytes()), optional("maxProcesses", processes()),
                       optional("network", boolean()),
                       optional("stdoutContains", text(1, 4096)), optional("jsonResult", text(1, 128))});
  auto hidden = object({required("directory", text(1, 4096)), required("mountAt", text(1, 1024))});
  auto repository = object({required("repositoryId", identifier()), optional("setup", text(TextRule::command)),
                            optional("setupTimeoutMs", milliseconds()), optional("setupNetwork", boolean()),
                            optional("hiddenChecks", hidden)});
  return object({required("type", constant("strata-verifier-config")), required("schemaVersion", constant(1)),
                 optional("defaults", defaults), optional("checks", array_of(check, 0, 4096)),
                 optional("repositories", array_of(repository, 0, 64))});
}

}  // namespace strata::model
