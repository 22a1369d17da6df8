#pragma once
#include <string_view>

#include "nbody/config.hpp"

namespace nbody {

// --snapshot-fields: what a snapshot carries beyond the state.
struct SnapshotFields {
  bool acceleration = false;  // "acc": PartType1/Acceleration
  bool potential = false;     // "pot": PartType1/Potential
  [[nodiscard]] bool any() const noexcept { return acceleration || potential; }
};
// A comma list of acc and pot ("" for none); an input error for another word.
[[nodiscard]] SnapshotFields parse_snapshot_fields(std::string_view text);

// [output]: the run directory and the cadence of diagnostics, snapshots and checkpoints.
[[nodiscard]] ParamSection output_parameters();

}  // namespace nbody
