#pragma once
// Particle files in three formats: HDF5 in the GADGET-4 layout (when built with HDF5), Tipsy
// binary and CSV. One entry point to read (format from the extension or sniffed, every value
// validated) and one to write; the per-format code lives in gadget_hdf5, tipsy and
// csv_snapshot.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/units.hpp"
#include "nbody/config.hpp"
#include "nbody/particles.hpp"
#include "nbody/precision.hpp"

namespace nbody {

enum class ParticleFormat { csv, hdf5, tipsy };

// `--ic file:PATH`
inline constexpr std::string_view kIcFilePrefix = "file:";
[[nodiscard]] inline bool is_file_ic(std::string_view ic) {
  return ic.substr(0, kIcFilePrefix.size()) == kIcFilePrefix;
}

[[nodiscard]] std::string_view to_string(ParticleFormat f) noexcept;
// "csv", "hdf5", "tipsy"; throws an input error naming `what` for another name.
[[nodiscard]] ParticleFormat parse_particle_format(std::string_view name, std::string_view what);
// The extension snapshots of this format get: ".csv", ".hdf5", ".tipsy".
[[nodiscard]] std::string_view file_extension(ParticleFormat f) noexcept;
// From the extension (.hdf5/.h5, .tipsy/.std/.bin, .csv); nullopt for another one.
[[nodiscard]] std::optional<ParticleFormat> format_from_extension(const std::filesystem::path& path);
// True when this build reads and writes HDF5.
[[nodiscard]] bool hdf5_available() noexcept;

// What a file holds besides the particles.
struct ParticleFileInfo {
  ParticleFormat format = ParticleFormat::csv;
  double time = 0;                     // simulation time in the header (CSV: its metadata comment; else 0)
  std::optional<Precision> precision;  // as stored (none for CSV: decimal text)
  std::optional<UnitSystemCgs> units;  // HDF5 /Units or the CSV metadata comment when given (none for Tipsy)
  // The softening of the run that wrote the file: HDF5 /Parameters/softening, the CSV metadata
  // comment's, Tipsy's eps when every body has the same one > 0 (0 is what writers without a
  // softening put there). None when the file does not say.
  std::optional<double> softening;
};

// What a reader reads: the particles and the metadata, or the metadata alone (the header, the
// units, the softening; Tipsy's eps needs every record, so its reader reads them all).
enum class FileRead { everything, metadata };

struct ParticleFileData {
  Particles<double> particles;  // exact: float32 values widen without rounding
  ParticleFileInfo info;
};

// Reads a particle file: format from the extension, else sniffed from the content. Every
// problem (missing, empty, truncated or corrupt file, wrong magic or header, a NaN or Inf
// value, a mass <= 0, a duplicate id, no particles) is an input error that names the file and,
// where it makes sense, the line or record.
[[nodiscard]] ParticleFileData read_particle_file(const std::filesystem::path& path);
// The same checks of the path, then only what the file records besides the particles.
[[nodiscard]] ParticleFileInfo read_particle_file_info(const std::filesystem::path& path);

// What a writer records besides the particles.
struct SnapshotMeta {
  Precision precision = Precision::fp64;  // values are written in this type
  double time = 0;
  const RunConfig* config = nullptr;  // the run's configuration (HDF5 /Parameters, Tipsy eps); may be null
  // HDF5 /Units: these when given (a converted file keeps its own), else the configuration's
  // unit system, else all 1.
  std::optional<UnitSystemCgs> units;
  // Fields computed by the run's solver, one value (or row) per body in p's order; HDF5 writes
  // them as PartType1/Acceleration (N x 3) and PartType1/Potential (N). Null: not written.
  const Accelerations<double>* acceleration = nullptr;
  const std::vector<double>* potential = nullptr;
};

// The unit system a snapshot records: meta.units, else the configuration's, else all 1.
[[nodiscard]] UnitSystemCgs snapshot_units(const SnapshotMeta& meta);

// Writes atomically (a temporary file, flushed, renamed). Tipsy stores float32 whatever the
// precision. A runtime error naming the file when it cannot be written.
void write_particle_file(const std::filesystem::path& path, ParticleFormat format, const Particles<double>& p,
                         const SnapshotMeta& meta);

// Checks every value of particles read from `path`: finite, masses > 0, ids unique. `record`
// names a particle's position in the file in messages ("line 7", "record 7").
void validate_particles(const Particles<double>& p, const std::filesystem::path& path,
                        const std::function<std::string(std::size_t index)>& record);

// "<path>: <what>" as an input error.
[[noreturn]] void throw_file_error(const std::filesystem::path& path, const std::string& what);

}  // namespace nbody
