#pragma once
// The shape of `strata-verifier-config` (docs/VERIFIER.md, issue 33): Strata's own sealed artifact
// beside the study's, saying how `strata run --verify` runs each task's acceptance checks, the
// repositories' set-ups and their hidden check files. Sealed and hashed like the study artifacts.
#include "strata/model/json/shape.hpp"

namespace strata::model {

ShapePtr verifier_config_payload();

}  // namespace strata::model
