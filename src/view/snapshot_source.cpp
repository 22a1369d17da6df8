#include "view/snapshot_source.hpp"

#include "io/particle_file.hpp"
#include "view/point_cloud.hpp"

namespace nbody::view {

SnapshotSource::SnapshotSource(RunCatalog catalog, std::size_t max_points, std::size_t keep)
    : catalog_(std::move(catalog)), max_points_(max_points), keep_(keep), counts_(catalog_.snapshots.size()) {}

std::string SnapshotSource::run_json() const {
  std::lock_guard lock(mutex_);
  return view::run_json(catalog_, counts_, max_points_, components_);
}

std::string SnapshotSource::encoded(std::size_t index) {
  auto cached = [&]() -> std::optional<std::string> {
    std::lock_guard lock(mutex_);
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if (it->first != index) continue;
      cache_.splice(cache_.begin(), cache_, it);
      return cache_.front().second;
    }
    return std::nullopt;
  };
  if (auto hit = cached()) return std::move(*hit);
  std::lock_guard reading(read_mutex_);
  if (auto hit = cached()) return std::move(*hit);  // read by another request meanwhile
  const SnapshotEntry& entry = catalog_.snapshots.at(index);
  std::string bytes;
  std::size_t count = 0;
  {
    const ParticleFileData data = read_particle_file(entry.file);
    count = data.particles.size();
    if (data.particles.component_names.size() > 1 && components_.empty()) {
      std::lock_guard lock(mutex_);
      components_ = data.particles.component_names;
    }
    bytes = encode(make_point_cloud(data.particles, data.info.time, max_points_));
  }
  std::lock_guard lock(mutex_);
  counts_[index] = count;
  cache_.emplace_front(index, bytes);
  if (cache_.size() > keep_) cache_.pop_back();
  return bytes;
}

}  // namespace nbody::view
