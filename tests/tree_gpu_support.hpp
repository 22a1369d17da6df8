#pragma once
// What the GPU tree's tests share: the skip without a usable device, and the Plummer model they
// compare on.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "gravity/tree/cuda_tree.hpp"
#include "ic/ic.hpp"

// Skips the test (with the reason) where no CUDA device can run the tree.
#define REQUIRE_TREE_GPU()                                                                      \
  do {                                                                                          \
    std::string why_;                                                                           \
    if (!gravity::tree::cuda_tree_available(&why_)) GTEST_SKIP() << "no CUDA device: " << why_; \
  } while (0)

namespace nbody::test {

inline Particles<double> tree_plummer_model(std::int64_t n, std::uint64_t seed) {
  IcRequest r;
  r.name = "plummer";
  r.n = n;
  r.seed = seed;
  return make_plummer(r);
}

}  // namespace nbody::test
