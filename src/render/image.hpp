#pragma once
// An 8-bit RGB or RGBA image and its PNG file, written through libpng: deterministic bytes (no
// time chunk; a fixed zlib level and filter choice, by default level 6 and libpng's adaptive
// filters: the same bytes for the same pixels, text, encoding and library versions), written
// atomically (a temporary beside the file, then renamed; nothing is left behind when anything
// fails, a full disk included).
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "render/colormap.hpp"

namespace nbody::render {

struct Image {
  int width = 0, height = 0;
  int channels = 3;  // 3: RGB, 4: RGBA (straight alpha)
  std::vector<std::uint8_t> pixels;  // rows from the top, `channels` bytes a pixel

  Image() = default;
  // Filled with `fill` (alpha 255).
  Image(int w, int h, int channels = 3, Rgb fill = {255, 255, 255});

  [[nodiscard]] std::uint8_t* at(int x, int y) {
    return &pixels[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * std::size_t(channels)];
  }
  [[nodiscard]] const std::uint8_t* at(int x, int y) const {
    return &pixels[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * std::size_t(channels)];
  }
  void set(int x, int y, Rgb c) {
    std::uint8_t* p = at(x, y);
    p[0] = c[0], p[1] = c[1], p[2] = c[2];
    if (channels == 4) p[3] = 255;
  }
  [[nodiscard]] Rgb rgb(int x, int y) const {
    const std::uint8_t* p = at(x, y);
    return {p[0], p[1], p[2]};
  }
};

// Text chunks (keyword, value) stored as tEXt: Latin-1 keywords of 1-79 characters.
using TextChunks = std::vector<std::pair<std::string, std::string>>;

// How the pixels are compressed: the zlib level (0-9) and the PNG row filters. Any choice gives
// the same pixels; it trades the file's size against the encoder's time.
enum class PngFilters {
  adaptive,  // libpng's default: each row's best of the five filters (by a heuristic)
  none,
  sub,
  up,
  paeth,
};
struct PngEncoding {
  int level = 6;
  PngFilters filters = PngFilters::adaptive;
};
// The encoding of frames (render/frame.hpp): zlib's fastest level, rows unfiltered. On frames of
// bodies (scattered points on black) it took a fifth to a third of the default's time for 1.2 times its
// size; no filter gave both a smaller file and a faster encoder than any other (docs/pictures.md,
// "Alongside the run").
inline constexpr PngEncoding kFastPng{1, PngFilters::none};

// The bytes of the PNG file. Input error for an empty or oversized image, a pixel buffer of the
// wrong size, a bad keyword or a level outside 0-9; runtime error when libpng fails.
[[nodiscard]] std::string encode_png(const Image& image, const TextChunks& text = {}, PngEncoding encoding = {});
// Writes it atomically; a runtime error naming the file when the write fails.
void write_png(const std::filesystem::path& path, const Image& image, const TextChunks& text = {},
               PngEncoding encoding = {});

// The image in a PNG file (any bit depth and colour type, converted to 8-bit RGB or RGBA) and its
// text chunks; a runtime error naming the file when it cannot be read or is no PNG.
struct PngFile {
  Image image;
  TextChunks text;
  [[nodiscard]] std::string text_value(const std::string& key) const;  // "" when absent
};
[[nodiscard]] PngFile read_png(const std::filesystem::path& path);

}  // namespace nbody::render
