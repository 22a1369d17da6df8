// The named outputs of a deck's [output] table: selected openPMD dumps and field probes
// (pic/driver/outputs.hpp).
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/atomic_file.hpp"
#include "io/run_files.hpp"
#include "nbody/error.hpp"
#include "pic/driver/outputs.hpp"
#include "pic/output/openpmd.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {

namespace fs = std::filesystem;

PicSelectedDumpOutput::PicSelectedDumpOutput(const SelectedDumpConfig& d, std::int64_t last, PicRunDirectory* dir,
                                             double wavelength_m, std::int64_t resumed_at)
    : d_(d), c_{d.every, last}, dir_(dir), wavelength_m_(wavelength_m) {
  if (dir_ == nullptr || resumed_at < 0) return;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_->path() / "dumps" / d_.name, ec)) {
    const auto step = PicRunDirectory::output_step(entry.path().filename().string());
    if (step && (*step > resumed_at || (*step == resumed_at && !c_.at(*step)))) RunFiles::remove(entry.path());
  }
}

void PicSelectedDumpOutput::write(PicRunState& s) {
  // (collective) a dump of fields other than rho needs no particle on the host
  const bool fields_only = !d_.selection.particles && !d_.selection.fields[kRho];
  PicSimulation& h = fields_only ? s.host_fields() : s.host();
  written_ = s.step();
  if (dir_ == nullptr) return;
  const fs::path folder = dir_->path() / "dumps" / d_.name;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw_runtime_error("cannot create '" + folder.string() + "': " + ec.message());
  if (d_.selection.fields[kRho]) h.compute_rho();
  (void)write_openpmd(folder.string(), h, wavelength_m_, d_.selection);
}

void PicSelectedDumpOutput::finish(PicRunState& s, RunEnd how) {
  if (how == RunEnd::completed && s.step() != written_) write(s);
}

namespace {

// The probe file's first two lines and its rows up to `step` (a row's first field is its step).
std::string probe_rows_until(const fs::path& p, std::int64_t step) {
  std::ifstream in(p, std::ios::binary);
  std::string kept, line;
  for (int n = 0; std::getline(in, line); ++n) {
    if (n >= 2) {
      std::int64_t at = 0;
      std::istringstream(line.substr(0, line.find(','))) >> at;
      if (at > step || line.find(',') == std::string::npos) break;
    }
    kept += line + "\n";
  }
  return kept;
}

}  // namespace

PicProbeOutput::PicProbeOutput(const ProbeConfig& p, std::int64_t last, PicRunDirectory* dir, const PicSimulation& sim,
                               double wavelength_m, std::int64_t resumed_at)
    : c_{p.every, last} {
  probe_.name = p.name;
  probe_.x = p.x * 2 * kPi, probe_.y = p.y * 2 * kPi;
  probe_.fields = p.fields;
  if (dir == nullptr) return;
  path_ = dir->path() / "probes" / (p.name + ".csv");
  std::error_code ec;
  fs::create_directories(path_.parent_path(), ec);
  if (ec) throw_runtime_error("cannot create '" + path_.parent_path().string() + "': " + ec.message());
  const std::string header = probe_csv_header(probe_, sim, wavelength_m);
  std::string text = header;
  if (resumed_at >= 0 && fs::exists(path_, ec)) {
    const std::string kept = probe_rows_until(path_, resumed_at);
    if (kept.compare(0, header.size(), header) == 0) text = kept;  // (a changed probe starts again)
  }
  write_file_atomic(path_, text);
  file_ = RunFiles::open_for_append(path_);
}

PicProbeOutput::~PicProbeOutput() {
  if (file_ != nullptr) std::fclose(file_);
}

void PicProbeOutput::write(PicRunState& s) {
  PicSimulation& h = s.host_fields();  // (collective; the fields alone: no particle leaves a device)
  if (file_ == nullptr) return;
  const std::string row = probe_csv_row(s.step(), s.time(), sample_probe(h, probe_));
  if (std::fprintf(file_, "%s\n", row.c_str()) < 0 || std::fflush(file_) != 0)
    throw_runtime_error("cannot write '" + path_.string() + "': " + std::strerror(errno));
}

}  // namespace nbody::pic
