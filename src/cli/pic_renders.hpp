#pragma once
// Pictures of a PIC run drawn afterwards from its openPMD dumps (`nbody render PIC_RUN`, and
// `nbody movie PIC_RUN --quantity Q` of a run without that image series): the same figures, drawn
// by the same code (pic/output/images.hpp), as the run's own output.images_every.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace nbody::cli {

// A run directory of nbody pic run (it holds deck.toml)?
[[nodiscard]] bool is_pic_run(const std::filesystem::path& dir);

struct PicRenderRequest {
  std::filesystem::path run, out;        // out: the images' directory (created)
  std::vector<std::string> quantities;   // Ey, Ez, Bz, E_abs, density_<species>, ...; empty: all
  std::string colormap;                  // empty: each quantity's own
  std::int64_t first = 0, last = std::numeric_limits<std::int64_t>::max();  // steps, both included
};

// "A:B", "A:", ":B", "A" (one step) into first and last; an input error naming `flag` otherwise.
void parse_step_range(const std::string& text, const std::string& flag, std::int64_t& first, std::int64_t& last);

// Reads the run's deck (deck.toml) and each dump RUN/pic_<step>.h5 with a step in [first, last],
// and writes the requested images of each into `out` as <quantity>_<8-digit step>.png; returns
// them. Input errors (one line): no dumps there (or none in the range), an unknown quantity, a
// species the run has not, an unknown colour map, a dump that does not fit the deck; a build
// without HDF5 or the renderer says so.
std::vector<std::filesystem::path> render_pic_run(const PicRenderRequest& request);

}  // namespace nbody::cli
