#pragma once
// The snapshots of a run as the server hands them out: read through io/particle_file (every
// format) when first asked for, turned into an encoded point cloud, the latest few kept. Safe to
// call from the server's threads; a snapshot is read once even when asked for twice at once.
#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "view/run_catalog.hpp"

namespace nbody::view {

class SnapshotSource {
 public:
  // keep: how many encoded snapshots stay in memory.
  SnapshotSource(RunCatalog catalog, std::size_t max_points, std::size_t keep = 4);

  [[nodiscard]] const RunCatalog& catalog() const noexcept { return catalog_; }
  // GET /api/run.
  [[nodiscard]] std::string run_json() const;
  // The encoded point cloud of snapshot `index` (< catalog().snapshots.size()); an input error
  // naming the file when it cannot be read.
  [[nodiscard]] std::string encoded(std::size_t index);

 private:
  RunCatalog catalog_;
  std::size_t max_points_;
  std::size_t keep_;
  mutable std::mutex mutex_;             // guards counts_ and cache_
  std::mutex read_mutex_;                // one snapshot read at a time (memory, the disk)
  std::vector<std::optional<std::size_t>> counts_;
  std::vector<std::string> components_;  // the first snapshot's names that has two or more
  std::list<std::pair<std::size_t, std::string>> cache_;  // most recent first
};

}  // namespace nbody::view
