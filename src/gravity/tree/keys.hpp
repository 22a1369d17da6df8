#pragma once
// The tree's space-filling-curve keys: the Morton keys of core/morton_keys.hpp, named in the
// tree's namespace.
#include "core/morton_keys.hpp"

namespace nbody::gravity::tree {
using namespace nbody::sfc;  // NOLINT(google-build-using-namespace): the keys are the tree's vocabulary
}  // namespace nbody::gravity::tree
