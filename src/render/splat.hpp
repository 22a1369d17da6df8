#pragma once
// Projection of bodies onto an image: an orthographic camera and the surface density per pixel.
//
// The splat is nearest-grid-point (NGP): each body inside the view puts its whole mass into the
// one pixel that holds its projected position, so the projected mass equals the mass inside the
// view to rounding (the sum of the pixels times the pixel area), a body lands on exactly one
// pixel, and a device path needs one atomic add per body. The inputs are spans over the store's
// structure-of-arrays fields, so a GPU splat over device spans plugs in behind the same
// signature later.
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace nbody::render {

using Vec3 = std::array<double, 3>;

struct Camera {
  std::optional<Vec3> centre;  // none: the centre of mass of the bodies given
  Vec3 direction{0, 0, -1};    // the line of sight (looking down from +z by default)
  Vec3 up{0, 1, 0};            // the image's up (its component along direction is dropped)
  double width = 1;            // the view's width in length units; the height follows the image
};

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

// The camera's orthonormal basis: right, up (both in the image plane) and the line of sight.
// Input error for a zero direction, a zero up or an up along the direction.
struct CameraBasis {
  Vec3 right, up, forward;
};
[[nodiscard]] CameraBasis camera_basis(const Camera& c);

// The surface density of the bodies (x, y, z, m: one entry per body, equal lengths) on an
// nx x ny image. Bodies outside the view are left out. Input error for bad sizes, a width <= 0 or
// a bad camera.
template <class T>
[[nodiscard]] SurfaceMap splat_surface_density(std::span<const T> x, std::span<const T> y, std::span<const T> z,
                                               std::span<const T> m, const Camera& camera, int nx, int ny);

}  // namespace nbody::render
