#pragma once
// PNG images of a PIC state, written by the program itself (output.images_every) through the
// renderer (src/render/): each a figure with axes in the run's units (x, y in laser wavelengths
// lambda), a colour bar with its range and unit, a title and the time, in <out>/images/:
//   Ey_<step>.png, Ez_<step>.png, Bz_<step>.png   coolwarm (diverging), symmetric range
//                                                 [-max|F|, +max|F|] (zero in the middle)
//   E_abs_<step>.png                              |E| = sqrt(Ex^2 + Ey^2 + Ez^2), viridis, [0, max]
//   density_<species>_<step>.png                  |rho_s / q_s| (n_c), viridis, log10 over
//                                                 [max / 1e4 (or the smallest value above it), max]
//   phase_<species>_<step>.png                    x-u_x histogram of the weights, 400 x 200 bins,
//                                                 viridis, log10 over 5 decades, white = empty
//   spectrum_<species>_<step>.png                 the energy spectrum dN/dE (weight per MeV)
//                                                 against E (MeV) as a line plot, log10 y: the
//                                                 histogram of spectrum.hpp (200 bins from 0 to
//                                                 the largest energy, spectrum_<step>.csv's)
// Field maps sample one node per map pixel when nx <= 2048 (nearest node otherwise; the height
// follows the box's aspect ratio, at least 32 samples); the figure shows each sample as an s x s
// block (docs/pictures.md). Every image is written atomically and also carries its range, colour
// map, scale, step, time and extent, and the pixel boxes of its map and colour bar, in tEXt
// chunks (any PNG viewer's "properties"; Python: PIL.Image.open(f).text). The same images of a
// state read back from an openPMD dump (openpmd_read.hpp) are drawn here too: `nbody render` of a
// PIC run (cli/pic_renders.hpp), the same bytes as the run's own.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "pic/cpu/simulation.hpp"
#include "pic/output/spectrum.hpp"
#include "render/figure.hpp"

namespace nbody::pic {

// Whether this build writes images (the renderer is built); `why` says why not.
[[nodiscard]] bool images_available(std::string* why = nullptr);

// The map size for a grid: width min(nx, 2048) samples, height from the aspect ratio.
void field_image_size(const GridGeometry& g, int& width, int& height);
// The node (i, j) a map sample shows (px to the right, py down from the top).
void pixel_node(const GridGeometry& g, int width, int height, int px, int py, int& i, int& j);

enum class FieldMapKind {
  signed_field,  // coolwarm, symmetric
  magnitude,     // viridis, linear from 0
  density,       // viridis, log
};

struct FieldMapLabels {
  std::string title, time, quantity;  // quantity: the colour bar's label with its unit
};

// The figure of `values` (nx x ny nodes, index j * nx + i). `lo`, `hi` get the colour bar's range.
// `colormap`: another map than the kind's own (the scale stays the kind's).
render::Figure field_map(const GridGeometry& g, const std::vector<double>& values, FieldMapKind kind,
                         const FieldMapLabels& labels, double& lo, double& hi,
                         std::optional<render::ColormapId> colormap = std::nullopt);
// The scale a field map of that kind uses for these values.
render::Scale field_scale(const std::vector<double>& values, FieldMapKind kind);

struct PhaseHistogram {
  int nx_bins = 0, nu_bins = 0;
  double x_lo = 0, x_hi = 0, u_lo = 0, u_hi = 0;
  std::vector<double> weight;  // [iu * nx_bins + ix]
};
// The x-u_x histogram of a species' weights: x over the grid, u_x over the species' range
// (u_lo - 0.5, u_lo + 0.5 when all are equal); particles outside are clamped to the edge bins.
PhaseHistogram phase_histogram(const Species& s, const GridGeometry& g, int nx_bins = 400, int nu_bins = 200);
// Its figure: x (lambda) to the right, u_x up, log colour scale over `decades` below the largest
// bin, white where empty.
render::Figure phase_image(const PhaseHistogram& h, const FieldMapLabels& labels, double decades = 5,
                           std::optional<render::ColormapId> colormap = std::nullopt);

// The energy spectrum's figure: dN/dE (weight per MeV) against E in MeV from 0 to the largest
// energy, drawn as the histogram's outline (empty bins at the axis' low end) on a log y axis over
// whole decades, from the largest bin down to the smallest non-empty one but at most 6 decades
// below it; `lo`, `hi` get that range. A species with no moving particle: empty axes (E from 0 to
// 1 MeV, dN/dE from 0.1 to 1) and a note saying so.
render::LinePlot spectrum_image(const EnergySpectrum& s, const FieldMapLabels& labels, double& lo, double& hi);

// The quantities of a state's images, in the order they are written: Ey, Ez, Bz, E_abs, then per
// species density_<name>, phase_<name>, spectrum_<name>.
[[nodiscard]] std::vector<std::string> image_quantities(const PicSimulation& sim);

// Which images, where, and in which colour map.
struct ImageRequest {
  std::filesystem::path dir;            // the images go straight into it (created)
  std::vector<std::string> quantities;  // of image_quantities(); empty: all of them
  std::string colormap;                 // the maps' colour map by name; empty: each kind's own
};
// Refuses (an input error) a request write_images would refuse, before anything is drawn.
void check_image_request(const ImageRequest& request, const PicSimulation& sim);
// Writes the requested images of the present state (`<quantity>_<8-digit step>.png`); returns
// the files written. An unknown quantity (or a species the run has not) or colour map is an input
// error naming it and what there is. rho is recomputed per species and left as the total charge
// density. The run (output.images_every) and `nbody render` of a PIC run's dumps both draw here.
std::vector<std::filesystem::path> write_images(const ImageRequest& request, PicSimulation& sim);
// Every image of the present state into <dir>/images/ in each kind's colour map.
void write_images(const std::string& dir, PicSimulation& sim);

}  // namespace nbody::pic
