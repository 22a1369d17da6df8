// nbody convert IN OUT: a particle file from one format to another (HDF5, Tipsy, CSV).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "core/strings.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"

namespace nbody::cli {
namespace {

struct ConvertOptions {
  std::string in, out, precision;
  bool overwrite = false;
};

int execute(const ConvertOptions& opts) {
  namespace fs = std::filesystem;
  // Check everything before reading a large file or writing anything.
  const auto format = format_from_extension(opts.out);
  if (!format) {
    throw_input_error("convert: cannot tell the format of '" + opts.out +
                      "' from its extension (use .hdf5/.h5, .tipsy/.std/.bin or .csv)");
  }
  if (*format == ParticleFormat::hdf5 && !hdf5_available()) {
    throw_input_error("convert: cannot write '" + opts.out +
                      "': this build of nbody has no HDF5 support (configure with -DNBODY_ENABLE_HDF5=ON)");
  }
  std::optional<Precision> precision;
  if (!opts.precision.empty()) precision = parse_precision(opts.precision, "--precision");
  std::error_code ec;
  if (fs::exists(opts.out, ec) && !opts.overwrite) {
    throw_input_error("convert: '" + opts.out + "' exists (pass --overwrite to replace it)");
  }
  if (fs::exists(opts.out, ec) && fs::equivalent(opts.in, opts.out, ec)) {
    throw_input_error("convert: IN and OUT are the same file");
  }
  // OUT's directory must exist and take new files (the temporary file written beside OUT).
  const fs::path dir = fs::path(opts.out).parent_path().empty() ? fs::path(".") : fs::path(opts.out).parent_path();
  if (!fs::is_directory(dir, ec)) {
    throw_input_error("convert: cannot write '" + opts.out + "': no directory '" + dir.string() + "'");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw_input_error("convert: cannot write '" + opts.out + "': directory '" + dir.string() +
                      "' is not writable (" + std::strerror(errno) + ")");
  }
  const ParticleFileData data = read_particle_file(opts.in);
  SnapshotMeta meta;
  meta.precision = precision.value_or(data.info.precision.value_or(Precision::fp64));
  meta.time = data.info.time;
  meta.units = data.info.units;  // HDF5 to HDF5 keeps the units
  write_particle_file(opts.out, *format, data.particles, meta);
  std::printf("convert: %s (%s, %zu bodies, t = %s) -> %s (%s, %s)\n", opts.in.c_str(),
              std::string(to_string(data.info.format)).c_str(), data.particles.size(),
              readable_number(data.info.time).c_str(), opts.out.c_str(),
              std::string(to_string(*format)).c_str(),
              *format == ParticleFormat::tipsy ? "fp32" : std::string(to_string(meta.precision)).c_str());
  return 0;
}

}  // namespace

Command add_convert_command(CLI::App& parent) {
  auto* app = parent.add_subcommand(
      "convert",
      "Convert a particle file between formats, chosen by extension: .hdf5/.h5 (GADGET-4 layout), "
      ".tipsy/.std/.bin (Tipsy binary, float32) and .csv (id,m,x,y,z,vx,vy,vz[,component]); the input "
      "format is sniffed when its extension is unknown. Values are validated as for --ic file:PATH.");
  auto opts = std::make_shared<ConvertOptions>();
  app->add_option("IN", opts->in, "particle file to read")->required();
  app->add_option("OUT", opts->out, "particle file to write")->required();
  app->add_option("--precision", opts->precision,
                  "floating-point type written {fp32|fp64} (default: as stored in IN; fp64 for CSV)")
      ->type_name("TEXT");
  app->add_flag("--overwrite", opts->overwrite, "replace OUT if it exists");
  return {app, [opts]() { return execute(*opts); }};
}

}  // namespace nbody::cli
