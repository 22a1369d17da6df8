#pragma once
// A frame of a gravity run (docs/pictures.md, "Frames of gravity runs"): the projected surface
// density of the bodies (render/shade.hpp) in a figure (render/figure.hpp) with the axes in the
// run's length unit across the camera's plane through the centre, a colour bar of the surface
// density (log10), the title, the time and a scale bar; the numbers also in PNG text chunks.
// Deterministic bytes: the same map and labels give the same file.
#include <cstdint>
#include <filesystem>
#include <string>

#include "nbody/camera.hpp"
#include "render/colormap.hpp"
#include "render/figure.hpp"
#include "render/image.hpp"

namespace nbody::render {

struct FrameStyle {
  ColormapId colormap = ColormapId::magma;
  double decades = 4;  // of the log scale below the densest pixel
};

struct FrameLabels {
  std::string title;         // "plummer, 10000 bodies"
  std::int64_t step = -1;    // -1: none
  double time = 0;
  std::string units = "henon";  // the run's unit system (core/units.hpp)
  std::string camera;        // a description for the text chunks
  // The component names (a legend when coloured by component); an empty name: not drawn (not in
  // the legend).
  std::vector<std::string> components;
};

// The short names of a unit system's length, mass and time ("kpc", "Msun", "kpc/(km/s)"; Henon
// units: "", "", "").
struct ShortUnits {
  std::string length, mass, time;
};
[[nodiscard]] ShortUnits short_units(const std::string& system);

[[nodiscard]] Figure draw_frame(const DensityMap& map, const FrameStyle& style, const FrameLabels& labels);
[[nodiscard]] TextChunks frame_chunks(const DensityMap& map, const FrameStyle& style, const FrameLabels& labels,
                                      const Figure& figure);
// Draws and writes it atomically to `path` (by default encoded fast: kFastPng).
void write_frame(const std::filesystem::path& path, const DensityMap& map, const FrameStyle& style,
                 const FrameLabels& labels, PngEncoding encoding = kFastPng);
// The same of a map shaded where it was projected (Simulation::project_shaded).
void write_frame(const std::filesystem::path& path, const ShadedMap& shaded, const FrameStyle& style,
                 const FrameLabels& labels, PngEncoding encoding = kFastPng);
// The shading of a frame in this style, for Simulation::project_shaded.
[[nodiscard]] ShadeSpec shade_spec(const FrameStyle& style, bool by_component);
// "frame_00000100.png"
[[nodiscard]] std::string frame_file_name(std::int64_t step);

}  // namespace nbody::render
