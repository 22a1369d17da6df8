#pragma once
// A camera on the bodies of a simulation and the map of projected mass it sees
// (Simulation::project; docs/pictures.md, "Frames of gravity runs").
//
// Orthographic: the view is a width x (width * ny / nx) rectangle of the plane through the centre
// across the line of sight; each body inside it puts its whole mass into the pixel that holds its
// projection (nearest grid point), so the mass of the map equals the mass inside the view.
// Perspective: the eye is `distance` behind the centre along the line of sight, with a horizontal
// field of view of fov_degrees; each body in front of the eye and inside the frustum puts its
// mass into its pixel (mass per pixel; no depth weighting, nothing hides anything).
//
// Colour by component: with one component number per body (0, 1, ...), each body also adds its
// mass times its component's palette colour (component_colour) to three more channels, so a
// pixel's hue is the mass-weighted mix of its components' colours.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace nbody::render {

using Vec3 = std::array<double, 3>;

enum class Projection { orthographic, perspective };

struct Camera {
  Projection projection = Projection::orthographic;
  std::optional<Vec3> centre;  // none: the centre of mass of the bodies
  Vec3 direction{0, 0, -1};    // the line of sight (looking down from +z by default)
  Vec3 up{0, 1, 0};            // the image's up (its component along direction is dropped)
  double width = 1;            // orthographic: the view's width in length units
  double fov_degrees = 60;     // perspective: the horizontal field of view, in (0, 180)
  double distance = 1;         // perspective: from the eye to the centre, > 0
  // The components shown: bit c % 64 of shown[c / 64] for component tag c (a galaxy's disks and
  // bulges without its halo, say). Every body by default; only bodies with tags are filtered (a
  // map coloured by component, or given components).
  std::array<std::uint64_t, 4> shown{~0ull, ~0ull, ~0ull, ~0ull};
  [[nodiscard]] bool shows(std::uint8_t c) const { return ((shown[c >> 6] >> (c & 63)) & 1u) != 0; }
};

// Projected mass on nx x ny pixels: mass[j * nx + i], j counted from the bottom (y up). The
// extent [x_lo, x_hi] x [y_lo, y_hi] is in length units in the plane through the centre across
// the line of sight (for a perspective camera: the frustum's cross-section at the centre).
struct DensityMap {
  int nx = 0, ny = 0;
  Projection projection = Projection::orthographic;
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
  double pixel_size = 0;       // length units a pixel in that plane (square pixels)
  std::vector<double> mass;    // mass per pixel
  // With components: the mass-weighted palette colours, rgb_mass[3 * (j * nx + i) + c] =
  // sum of m * component_colour(component)[c] / 255 over the pixel's bodies; empty otherwise.
  std::vector<double> rgb_mass;
  double mass_inside = 0;      // the mass of the bodies inside the view
  std::size_t bodies_inside = 0;
  Vec3 centre{0, 0, 0};        // the centre used

  // Mass per area of pixel (i, j) in the centre's plane: mass / pixel_size^2.
  [[nodiscard]] double surface_density(std::size_t k) const { return mass[k] / (pixel_size * pixel_size); }
};

// How a map is shaded where it is projected (Simulation::project_shaded; the rules of
// render/shade.hpp): one colour map's 256 entries (8-bit RGB, low end first), or colour by
// component; a log scale of surface density from the largest down `decades` decades.
struct ShadeSpec {
  std::array<std::array<std::uint8_t, 3>, 256> colormap{};
  bool by_component = false;
  double decades = 4;
};

// A map shaded where it was projected: `map` has the geometry, mass_inside and bodies_inside
// (its mass and rgb_mass are left empty), `colours` one colour a pixel (j from the bottom, as
// mass), and [lo, hi] the log scale of surface density used.
struct ShadedMap {
  DensityMap map;
  std::vector<std::array<std::uint8_t, 3>> colours;
  double lo = 0.1, hi = 1;
  bool by_component = false;
};

// The fixed palette of component hues (8 entries; component c takes entry c mod 8).
inline constexpr int kComponentPaletteSize = 8;
[[nodiscard]] inline std::array<std::uint8_t, 3> component_colour(std::uint8_t component) {
  // Colour-blind-safe qualitative colours (Okabe & Ito), brightest first.
  constexpr std::uint8_t p[kComponentPaletteSize][3] = {{86, 180, 233}, {230, 159, 0}, {0, 158, 115},
                                                        {240, 228, 66}, {204, 121, 167}, {213, 94, 0},
                                                        {0, 114, 178},  {255, 255, 255}};
  const auto* c = p[component % kComponentPaletteSize];
  return {c[0], c[1], c[2]};
}

}  // namespace nbody::render
