#pragma once
// What a run directory holds for the viewer (`nbody view`): a gravity run's snapshots
// (snapshot_NNN.<ext>, any particle format) with their times, or a PIC run's images
// (images/<quantity>_SSSSSSSS.png) grouped by quantity. Only names and headers are read here;
// the particles are read when a snapshot is asked for.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"

namespace nbody::view {

struct SnapshotEntry {
  int number = 0;                // NNN of snapshot_NNN
  std::filesystem::path file;    // inside the run directory
  double time = 0;               // from the file's header
};

struct ImageFrame {
  std::int64_t step = 0;  // SSSSSSSS of the file name
  std::string file;       // the name inside images/
};

struct ImageSeries {
  std::string quantity;  // "Ey", "E_abs", "density_electron", ...
  std::vector<ImageFrame> frames;  // by step
};

struct RunCatalog {
  enum class Kind { gravity, pic };
  Kind kind = Kind::gravity;
  std::filesystem::path dir;
  std::vector<SnapshotEntry> snapshots;     // gravity: by number
  std::vector<ImageSeries> images;          // pic: by quantity name
  std::optional<UnitSystemCgs> units;       // the first snapshot's, when it records them
};

// The catalog of `dir`: its snapshots when it has any, else its images. An input error naming
// the directory when it is missing, not a directory, or holds neither; a snapshot whose header
// cannot be read is an input error naming the file.
[[nodiscard]] RunCatalog scan_run(const std::filesystem::path& dir);

// The name of a unit system whose factors these are ("galactic", ...), or "" when none has them.
[[nodiscard]] std::string unit_system_name_of(const UnitSystemCgs& u);

// GET /api/run: the run as JSON. `counts` gives the body count of the snapshots read so far
// (index in catalog.snapshots; nullopt: not read yet, written as null).
// `components`: the component names of the snapshots read so far (empty: one unnamed one).
[[nodiscard]] std::string run_json(const RunCatalog& catalog, const std::vector<std::optional<std::size_t>>& counts,
                                   std::size_t max_points, const std::vector<std::string>& components = {});

}  // namespace nbody::view
