#include "pic/output/run_directory.hpp"

#include <cerrno>
#include <cstring>

#include "io/atomic_file.hpp"
#include "nbody/error.hpp"

namespace nbody::pic {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUnits = "units.json";
constexpr const char* kImages = "images";
constexpr const char* kDumps = "dumps";    // the [[output.fields]] / [[output.particles]] dumps, a folder each
constexpr const char* kProbes = "probes";  // the [[output.probe]] time series


// A PIC run's own files, which --overwrite removes from an earlier run.
bool is_pic_run_file(const std::string& name) {
  return name == PicRunDirectory::kDeck || name == PicRunDirectory::kDiagnostics || name == kUnits ||
         name == kImages || name == kDumps || name == kProbes || name == "timings.json" || name == "checkpoint.bin" ||
         PicRunDirectory::output_step(name).has_value();
}

}  // namespace

std::optional<std::int64_t> PicRunDirectory::output_step(const std::string& name) {
  const auto dot = name.rfind('.');
  const auto us = name.rfind('_', dot);
  if (dot == std::string::npos || us == std::string::npos || dot - us != 9) return std::nullopt;
  const std::string ext = name.substr(dot);
  if (ext != ".h5" && ext != ".csv" && ext != ".png") return std::nullopt;
  return RunFiles::numbered(name.substr(us + 1), "", ext);
}

PicRunDirectory::PicRunDirectory(const fs::path& path, const std::string& run_id, bool replace_existing,
                                 const std::string& deck, const std::string& units_json,
                                 const std::string& diagnostics_header)
    : files_(path, run_id, replace_existing, is_pic_run_file) {
  write_file_atomic(files_.path() / kDeck, deck);
  write_file_atomic(files_.path() / kUnits, units_json);
  write_file_atomic(files_.path() / kDiagnostics, diagnostics_header);
  diag_ = RunFiles::open_for_append(files_.path() / kDiagnostics);
}

PicRunDirectory::PicRunDirectory(const fs::path& path, const PicProgress& progress, const std::string& deck)
    : files_(path, "resume") {
  const fs::path& dir = files_.path();
  // Read before anything is removed, so that a refusal leaves the directory as it was.
  const std::string kept = RunFiles::csv_rows(dir / kDiagnostics, progress.diagnostics_rows);
  std::error_code ec;
  for (const fs::path& folder : {dir, dir / kImages}) {
    const std::int64_t last = folder == dir ? progress.fields_step : progress.images_step;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      const auto step = output_step(entry.path().filename().string());
      if (step && *step > last) RunFiles::remove(entry.path());
    }
  }
  files_.continue_run("");
  write_file_atomic(dir / kDiagnostics, kept);
  write_file_atomic(dir / kDeck, deck);
  rows_ = progress.diagnostics_rows;
  diag_ = RunFiles::open_for_append(dir / kDiagnostics);
}

PicRunDirectory::~PicRunDirectory() {
  if (diag_ != nullptr) std::fclose(diag_);
}

void PicRunDirectory::append_diagnostics(const std::string& row) {
  if (std::fprintf(diag_, "%s\n", row.c_str()) < 0 || std::fflush(diag_) != 0)
    throw_runtime_error("cannot write '" + (files_.path() / kDiagnostics).string() + "': " + std::strerror(errno));
  ++rows_;
}

void PicRunDirectory::sync() {
  RunFiles::flush_to_disk(diag_, files_.path() / kDiagnostics);
  files_.sync_log();
}

}  // namespace nbody::pic
