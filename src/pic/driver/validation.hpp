#pragma once
// The validation suite of `nbody pic check`: small versions of the physics tests, each returning
// its measured number, the target and whether it passed.
#include <string>
#include <vector>

namespace nbody::pic {

struct ValidationResult {
  std::string name;
  double measured = 0;
  std::string target;
  bool passed = false;
};

std::vector<ValidationResult> run_validation_suite();

}  // namespace nbody::pic
