#include "io/particle_file.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <unordered_map>

#include "io/components.hpp"
#include "io/csv_snapshot.hpp"
#include "io/gadget_hdf5.hpp"
#include "io/tipsy.hpp"
#include "core/strings.hpp"
#include "nbody/error.hpp"

namespace nbody {

namespace fs = std::filesystem;

bool hdf5_available() noexcept { return NBODY_HAVE_HDF5 != 0; }

std::vector<std::string> snapshot_format_names() {
  if (hdf5_available()) return {"hdf5", "tipsy", "csv"};
  return {"csv", "tipsy"};
}

std::string default_snapshot_format() { return hdf5_available() ? "hdf5" : "csv"; }

std::string_view to_string(ParticleFormat f) noexcept {
  switch (f) {
    case ParticleFormat::csv:
      return "csv";
    case ParticleFormat::hdf5:
      return "hdf5";
    case ParticleFormat::tipsy:
      return "tipsy";
  }
  return "?";
}

std::string_view file_extension(ParticleFormat f) noexcept {
  switch (f) {
    case ParticleFormat::csv:
      return ".csv";
    case ParticleFormat::hdf5:
      return ".hdf5";
    case ParticleFormat::tipsy:
      return ".tipsy";
  }
  return "";
}

ParticleFormat parse_particle_format(std::string_view name, std::string_view what) {
  if (name == "csv") return ParticleFormat::csv;
  if (name == "tipsy") return ParticleFormat::tipsy;
  if (name == "hdf5") return ParticleFormat::hdf5;
  throw_input_error(std::string(what) + ": unknown format " + quoted_text(name) + " (choose csv, hdf5 or tipsy)");
}

std::optional<ParticleFormat> format_from_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".hdf5" || ext == ".h5") return ParticleFormat::hdf5;
  if (ext == ".tipsy" || ext == ".std" || ext == ".bin") return ParticleFormat::tipsy;
  if (ext == ".csv") return ParticleFormat::csv;
  return std::nullopt;
}

UnitSystemCgs snapshot_units(const SnapshotMeta& meta) {
  if (meta.units) return *meta.units;
  if (meta.config != nullptr) return unit_system_cgs(*meta.config);
  return {};
}

void throw_file_error(const fs::path& path, const std::string& what) { throw_input_error(path.string() + ": " + what); }

namespace {

// The format of a file without a known extension, from its first bytes.
ParticleFormat sniff_format(const fs::path& path, std::uintmax_t size) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  in.read(head, sizeof head);
  if (in.gcount() == 8 && std::string_view(head, 8) == std::string_view(kHdf5Signature, 8)) return ParticleFormat::hdf5;
  if (in.gcount() >= 3 && std::string_view(head, 3) == "id,") return ParticleFormat::csv;
  if (looks_like_tipsy(path, size)) return ParticleFormat::tipsy;
  throw_file_error(path,
                   "cannot tell the file format from its name or content (expected .hdf5/.h5, .tipsy/.std/.bin "
                   "or .csv)");
}

}  // namespace

namespace {

ParticleFileData read_any(const fs::path& path, FileRead what) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) throw_file_error(path, "no such file");
  if (!fs::is_regular_file(status)) throw_file_error(path, "not a regular file");
  const auto size = fs::file_size(path, ec);
  if (ec) throw_file_error(path, "cannot read: " + ec.message());
  if (size == 0) throw_file_error(path, "empty file");
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fclose(f);
  } else {
    throw_file_error(path, "cannot open for reading");
  }
  const auto by_name = format_from_extension(path);
  const ParticleFormat format = by_name ? *by_name : sniff_format(path, size);
  ParticleFileData data;
  switch (format) {
    case ParticleFormat::csv:
      data = read_csv_particles(path, what);
      break;
    case ParticleFormat::tipsy:
      data = read_tipsy(path, size);
      break;
    case ParticleFormat::hdf5:
      if (!hdf5_available()) {
        throw_file_error(path, "this build of nbody has no HDF5 support (configure with -DNBODY_ENABLE_HDF5=ON)");
      }
#if NBODY_HAVE_HDF5
      data = read_gadget_hdf5(path, what);
#endif
      break;
  }
  data.info.format = format;
  if (what == FileRead::everything && data.particles.size() == 0) {
    throw_file_error(path, "the file holds no particles");
  }
  return data;
}

}  // namespace

ParticleFileData read_particle_file(const fs::path& path) { return read_any(path, FileRead::everything); }

ParticleFileInfo read_particle_file_info(const fs::path& path) { return read_any(path, FileRead::metadata).info; }

void write_particle_file(const fs::path& path, ParticleFormat format, const Particles<double>& p,
                         const SnapshotMeta& meta) {
  switch (format) {
    case ParticleFormat::csv: {
      CsvMeta csv{meta.time, snapshot_units(meta), std::nullopt};
      if (meta.config != nullptr) csv.softening = meta.config->softening;
      if (meta.precision == Precision::fp32) {
        write_csv_snapshot(path, p.as<float>(), &csv);
      } else {
        write_csv_snapshot(path, p, &csv);
      }
      return;
    }
    case ParticleFormat::tipsy:
      write_tipsy(path, p, meta);
      return;
    case ParticleFormat::hdf5:
      if (!hdf5_available()) {
        throw_input_error("cannot write '" + path.string() +
                          "': this build of nbody has no HDF5 support (configure with -DNBODY_ENABLE_HDF5=ON)");
      }
#if NBODY_HAVE_HDF5
      write_gadget_hdf5(path, p, meta);
#endif
      return;
  }
}

void validate_particles(const Particles<double>& p, const fs::path& path,
                        const std::function<std::string(std::size_t)>& record) {
  struct Field {
    const char* name;
    const std::vector<double>* values;
  };
  const Field fields[] = {{"m", &p.m},   {"x", &p.x},   {"y", &p.y},  {"z", &p.z},
                          {"vx", &p.vx}, {"vy", &p.vy}, {"vz", &p.vz}};
  char value[40];
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (const auto& f : fields) {
      const double v = (*f.values)[i];
      if (!std::isfinite(v)) {
        std::snprintf(value, sizeof value, "%g", v);
        throw_file_error(path, record(i) + ": " + f.name + " is not a finite number (" + value + ")");
      }
    }
    if (!(p.m[i] > 0)) {
      std::snprintf(value, sizeof value, "%.17g", p.m[i]);
      throw_file_error(path, record(i) + ": mass must be > 0 (got " + value + ")");
    }
  }
  check_component_tags(p, path, record);
  std::unordered_map<std::uint64_t, std::size_t> seen;
  seen.reserve(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    const auto [it, fresh] = seen.emplace(p.id[i], i);
    if (!fresh) {
      throw_file_error(
          path, record(i) + ": duplicate id " + std::to_string(p.id[i]) + " (also at " + record(it->second) + ")");
    }
  }
}

}  // namespace nbody
