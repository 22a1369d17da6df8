#pragma once
// The directory of a PIC run (`nbody pic run --out DIR`), on the same RunFiles as gravity's
// (io/run_files.hpp: the lock, run_id, run.log, the stop file, checkpoint_<step>.ckpt, the latest
// two kept), with PIC's own files:
//   deck.toml                the resolved deck: the file with every --set and flag applied (it
//                            runs again to the same bits)
//   units.json               the SI conversion of the normalised units
//   diagnostics.csv          one row per diagnostics step (pic/driver/outputs.hpp)
//   pic_SSSSSSSS.h5          openPMD dumps; <kind>_SSSSSSSS.csv the reduced outputs beside them
//   images/*_SSSSSSSS.png    field maps and phase spaces
//   dumps/<name>/pic_SSSSSSSS.h5  the openPMD dumps of [[output.fields]] / [[output.particles]]
//   probes/<name>.csv        the time series of [[output.probe]]
// A resumed run keeps the diagnostics rows, dumps and images its checkpoint had seen and drops
// the rest, so that every file goes on as the uninterrupted run writes it (the named outputs trim
// their own files: pic/driver/outputs.hpp).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "io/run_files.hpp"
#include "pic/output/checkpoint.hpp"

namespace nbody::pic {

class PicRunDirectory {
 public:
  static constexpr const char* kDeck = "deck.toml";
  static constexpr const char* kDiagnostics = "diagnostics.csv";

  // A new run: the directory's files (RunFiles, `replace_existing` for --overwrite), deck.toml,
  // units.json and the header of diagnostics.csv.
  PicRunDirectory(const std::filesystem::path& path, const std::string& run_id, bool replace_existing,
                  const std::string& deck, const std::string& units_json, const std::string& diagnostics_header);
  // A resumed run from a checkpoint with `progress`: deck.toml rewritten (its run length may
  // change), what was written after the checkpoint removed.
  PicRunDirectory(const std::filesystem::path& path, const PicProgress& progress, const std::string& deck);
  ~PicRunDirectory();
  PicRunDirectory(const PicRunDirectory&) = delete;
  PicRunDirectory& operator=(const PicRunDirectory&) = delete;

  [[nodiscard]] RunFiles& files() noexcept { return files_; }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return files_.path(); }
  void log(std::string_view line) { files_.log(line); }
  // One row (a whole line, flushed).
  void append_diagnostics(const std::string& row);
  [[nodiscard]] std::int64_t diagnostics_rows() const noexcept { return rows_; }
  // diagnostics.csv and run.log flushed to disk (before a checkpoint).
  void sync();

  // The step in the name of a step-numbered output ("pic_00000120.h5", "ex_00000120.png"), or none.
  [[nodiscard]] static std::optional<std::int64_t> output_step(const std::string& file_name);

 private:
  RunFiles files_;
  std::FILE* diag_ = nullptr;
  std::int64_t rows_ = 0;
};

}  // namespace nbody::pic
