#pragma once
// PNG images of a PIC state, written by the program itself (output.images_every): field maps and
// x-u_x phase spaces, in <out>/images/. Every image is written atomically and carries its range,
// colour map, step, time and extent in tEXt chunks (any PNG viewer's "properties"; Python:
// PIL.Image.open(f).text).
//   Ey_<step>.png, Ez_<step>.png, Bz_<step>.png   diverging blue-white-red, symmetric range
//                                                 [-max|F|, +max|F|] (white is zero)
//   E_abs_<step>.png                              |E| = sqrt(Ex^2 + Ey^2 + Ez^2), sequential [0, max]
//   density_<species>_<step>.png                  |rho_s / q_s| (n_c), sequential [0, max]
//   phase_<species>_<step>.png                    x-u_x histogram of the weights, 400 x 200 bins,
//                                                 log colour scale over 5 decades, white = empty
// Field maps have x to the right and y up; one pixel per node when nx <= 2048 (nearest node
// otherwise); the height follows the box's aspect ratio, at least 32 pixels.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/png.hpp"
#include "pic/cpu/simulation.hpp"

namespace nbody::pic {

using Rgb = std::array<std::uint8_t, 3>;
// Sequential: white at 0 through yellow, orange and red to dark red at 1 (t clamped to [0, 1]).
Rgb sequential_colour(double t);
// Diverging: dark blue at -1, white at 0, dark red at +1 (t clamped to [-1, 1]).
Rgb diverging_colour(double t);

// The map image size for a grid: width min(nx, 2048), height from the aspect ratio.
void field_image_size(const GridGeometry& g, int& width, int& height);
// The node (i, j) a pixel of a field map shows.
void pixel_node(const GridGeometry& g, int width, int height, int px, int py, int& i, int& j);

// A map of `values` (nx x ny nodes, index j * nx + i): diverging with a symmetric range when
// `signed_map`, else sequential from 0. `range` gets the largest |value| (the map's scale).
png::Image field_map(const GridGeometry& g, const std::vector<double>& values, bool signed_map, double& range);

struct PhaseHistogram {
  int nx_bins = 0, nu_bins = 0;
  double x_lo = 0, x_hi = 0, u_lo = 0, u_hi = 0;
  std::vector<double> weight;  // [iu * nx_bins + ix]
};
// The x-u_x histogram of a species' weights: x over the grid, u_x over the species' range
// (u_lo - 0.5, u_lo + 0.5 when all are equal); particles outside are clamped to the edge bins.
PhaseHistogram phase_histogram(const Species& s, const GridGeometry& g, int nx_bins = 400, int nu_bins = 200);
// Its image: u_x up, log colour scale over `decades` below the largest bin, white where empty.
png::Image phase_image(const PhaseHistogram& h, double decades = 5);

// Writes every image of the present state into <dir>/images/ (rho is recomputed per species and
// left as the total charge density).
void write_images(const std::string& dir, PicSimulation& sim);

}  // namespace nbody::pic
