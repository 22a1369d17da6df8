#pragma once
// The surface density of bodies under an orthographic camera: the projected mass per pixel
// (render/projection.hpp) divided by the pixel's area. The splat is nearest-grid-point (NGP): each
// body inside the view puts its whole mass into the one pixel that holds its projected position,
// so the projected mass equals the mass inside the view to rounding (the sum of the pixels times
// the pixel area) and a body lands on exactly one pixel.
#include <cstddef>
#include <span>
#include <vector>

#include "render/projection.hpp"

namespace nbody::render {

// A 2D map of nx x ny pixels, value[j * nx + i] with j counted from the bottom (y up), over the
// rectangle [x_lo, x_hi] x [y_lo, y_hi] of the camera's plane (centred on the camera's centre).
struct SurfaceMap {
  int nx = 0, ny = 0;
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
  double pixel_size = 0;          // length units a pixel (square pixels)
  std::vector<double> value;      // mass per area
  double mass_inside = 0;         // the mass of the bodies inside the view
  std::size_t bodies_inside = 0;
  Vec3 centre{0, 0, 0};           // the centre used
};

// The surface density of the bodies (x, y, z, m: one entry per body, equal lengths) on an
// nx x ny image (the camera's projection must be orthographic). Bodies outside the view are left
// out. Input error for bad sizes, a width <= 0 or a bad camera.
template <class T>
[[nodiscard]] SurfaceMap splat_surface_density(std::span<const T> x, std::span<const T> y, std::span<const T> z,
                                               std::span<const T> m, const Camera& camera, int nx, int ny);

}  // namespace nbody::render
