#pragma once
// A small PNG writer (8-bit RGB, no interlace): the signature, IHDR, optional tEXt chunks, one
// IDAT and IEND, each chunk with its CRC-32. The image data is compressed with zlib when the build
// has it (NBODY_HAVE_ZLIB, level 6: the same bytes for the same input and zlib) and otherwise
// stored in uncompressed deflate blocks with the zlib header and Adler-32 trailer, which every PNG
// reader accepts. Every row uses filter type 0 (none). Deterministic: no time stamps.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace nbody::png {

// An 8-bit RGB image, rows from the top, 3 bytes per pixel.
struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;

  Image() = default;
  Image(int w, int h) : width(w), height(h), rgb(std::size_t(w) * std::size_t(h) * 3, 255) {}
  void set(int x, int y, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
    std::uint8_t* p = &rgb[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * 3];
    p[0] = r, p[1] = g, p[2] = b;
  }
};

// Text chunks (keyword, value): Latin-1 keywords of 1-79 characters.
using TextChunks = std::vector<std::pair<std::string, std::string>>;

// CRC-32 (ISO 3309, the PNG chunk CRC) continued from `crc` (0 to start).
[[nodiscard]] std::uint32_t crc32(const void* data, std::size_t n, std::uint32_t crc = 0);
// Adler-32 (the zlib stream checksum) continued from `adler` (1 to start).
[[nodiscard]] std::uint32_t adler32(const void* data, std::size_t n, std::uint32_t adler = 1);
// Whether this build compresses with zlib (otherwise stored deflate blocks).
[[nodiscard]] bool compressed() noexcept;

// The bytes of the PNG file. Throws an input error for an empty or oversized image.
// stored = true: stored deflate blocks even where zlib is available (the fallback, for tests).
[[nodiscard]] std::string encode(const Image& image, const TextChunks& text = {}, bool stored = false);
// Writes it atomically (temporary file and rename).
void write(const std::filesystem::path& path, const Image& image, const TextChunks& text = {});

}  // namespace nbody::png
