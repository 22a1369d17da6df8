#include "view/point_cloud.hpp"

#include <bit>
#include <cstring>

namespace nbody::view {

static_assert(std::endian::native == std::endian::little, "the point-cloud encoding is written as stored");

std::vector<std::size_t> subsample_indices(std::size_t n, std::size_t max_points) {
  std::vector<std::size_t> out;
  if (n <= max_points) {
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = i;
    return out;
  }
  out.resize(max_points);
  // (k + 1/2) n / max_points in integers, (2k + 1) n / (2 max_points), without overflow.
  __extension__ using Wide = unsigned __int128;
  for (std::size_t k = 0; k < max_points; ++k) {
    out[k] = static_cast<std::size_t>((Wide{2 * k + 1} * n) / (Wide{2} * max_points));
  }
  return out;
}

PointCloud make_point_cloud(const Particles<double>& p, double time, std::size_t max_points) {
  const std::vector<std::size_t> keep = subsample_indices(p.size(), max_points);
  PointCloud c;
  c.total = p.size();
  c.time = time;
  c.xyz.resize(3 * keep.size());
  c.mass.resize(keep.size());
  double total_mass = 0, kept_mass = 0;
  for (const double m : p.m) total_mass += m;
  for (const std::size_t i : keep) kept_mass += p.m[i];
  const double scale = kept_mass > 0 ? total_mass / kept_mass : 1.0;
  for (std::size_t k = 0; k < keep.size(); ++k) {
    const std::size_t i = keep[k];
    c.xyz[3 * k] = static_cast<float>(p.x[i]);
    c.xyz[3 * k + 1] = static_cast<float>(p.y[i]);
    c.xyz[3 * k + 2] = static_cast<float>(p.z[i]);
    c.mass[k] = static_cast<float>(p.m[i] * scale);
  }
  // The component tags of the kept bodies, where the snapshot names two components or more.
  if (p.component_names.size() > 1 && p.component.size() == p.size()) {
    c.component.resize(keep.size());
    for (std::size_t k = 0; k < keep.size(); ++k) c.component[k] = p.component[keep[k]];
  }
  return c;
}

namespace {
template <class V>
void put(std::string& out, std::size_t& at, const V& v) {
  std::memcpy(out.data() + at, &v, sizeof v);
  at += sizeof v;
}
}  // namespace

std::string encode(const PointCloud& c) {
  const std::size_t n = c.size();
  const bool with_component = !c.component.empty();
  std::string out(kPointCloudHeaderBytes + 16 * n + (with_component ? n : 0), '\0');
  std::size_t at = 0;
  std::memcpy(out.data(), "NBV1", 4);
  at = 4;
  put(out, at, static_cast<std::uint32_t>(with_component ? kPointCloudHasComponent : 0));
  put(out, at, static_cast<std::uint64_t>(c.total));
  put(out, at, static_cast<std::uint64_t>(n));
  put(out, at, c.time);
  std::memcpy(out.data() + at, c.xyz.data(), 12 * n);
  at += 12 * n;
  std::memcpy(out.data() + at, c.mass.data(), 4 * n);
  at += 4 * n;
  if (with_component) std::memcpy(out.data() + at, c.component.data(), n);
  return out;
}

}  // namespace nbody::view
