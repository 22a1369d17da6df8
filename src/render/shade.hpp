#pragma once
// The colours of a map of projected mass (nbody/camera.hpp), on a log scale of the surface
// density (mass per pixel over the pixel's area in the centre's plane):
//   one map:         the colour map at t = Scale::log(lo, hi).normalize(sigma); an empty pixel is
//                    the map's low end;
//   with components: the pixel's hue is the mass-weighted mix of its bodies' component colours
//                    (rgb_mass / mass) and its brightness is t: colour = round(255 * t * mix);
//                    an empty pixel is black.
// The scale runs from hi = the largest surface density down `decades` decades (a fixed span, so a
// pixel of one body stays visible beside the densest); a map with nothing in view has
// Scale::log(0.1, 1).
#include <vector>

#include "nbody/camera.hpp"
#include "render/colormap.hpp"
#include "render/image.hpp"

namespace nbody::render {

inline constexpr double kDefaultDecades = 4;

[[nodiscard]] Scale density_scale(const DensityMap& map, double decades = kDefaultDecades);
// The surface density of every pixel (value[j * nx + i], j from the bottom).
[[nodiscard]] std::vector<double> surface_density(const DensityMap& map);
// One colour a pixel, in the map's order (j from the bottom).
[[nodiscard]] std::vector<Rgb> shade(const DensityMap& map, ColormapId colormap, const Scale& scale);
// The colours as an RGB image, rows from the top (what a PNG or numpy shows).
[[nodiscard]] Image shaded_image(const DensityMap& map, ColormapId colormap, double decades = kDefaultDecades);
// The brightness ramp of the colour-by-component scale (black to white), for a colour bar.
[[nodiscard]] std::vector<Rgb> brightness_ramp();

}  // namespace nbody::render
