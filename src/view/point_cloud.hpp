#pragma once
// The bodies of one snapshot as the page draws them: float32 positions and masses (and the
// component tag when the snapshot has one), at most `max_points` of them. A larger snapshot is
// subsampled deterministically (evenly spaced indices) and the chosen masses are scaled so that
// their total is the snapshot's.
//
// GET /api/snapshot/K sends encode(cloud), little-endian:
//   bytes  0..3   "NBV1"
//   bytes  4..7   uint32 flags (bit 0: a component byte per point follows the masses)
//   bytes  8..15  uint64 the snapshot's body count
//   bytes 16..23  uint64 n, the points sent
//   bytes 24..31  float64 the snapshot's time
//   then float32 x, y, z of each point (3n), float32 masses (n), [uint8 components (n)]
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nbody/particles.hpp"

namespace nbody::view {

struct PointCloud {
  std::size_t total = 0;               // bodies in the snapshot
  double time = 0;
  std::vector<float> xyz;              // 3 per point
  std::vector<float> mass;             // scaled: the points' total is the snapshot's
  std::vector<std::uint8_t> component;  // empty, or one per point
  [[nodiscard]] std::size_t size() const noexcept { return mass.size(); }
};

inline constexpr std::size_t kPointCloudHeaderBytes = 32;
inline constexpr std::uint32_t kPointCloudHasComponent = 1;

// The indices kept of n bodies: all of them when n <= max_points, else max_points indices
// floor((k + 1/2) n / max_points), k = 0 .. max_points - 1 (increasing, evenly spread, the same
// every time). max_points >= 1.
[[nodiscard]] std::vector<std::size_t> subsample_indices(std::size_t n, std::size_t max_points);

[[nodiscard]] PointCloud make_point_cloud(const Particles<double>& p, double time, std::size_t max_points);

[[nodiscard]] std::string encode(const PointCloud& cloud);

}  // namespace nbody::view
