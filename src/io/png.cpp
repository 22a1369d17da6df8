#include "io/png.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "io/atomic_file.hpp"
#include "nbody/error.hpp"

#if NBODY_HAVE_ZLIB
#include <zlib.h>
#endif

namespace nbody::png {
namespace {

std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    t[n] = c;
  }
  return t;
}

void put32(std::string& out, std::uint32_t v) {
  const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out.append(b, 4);
}

void chunk(std::string& out, const char type[4], const std::string& data) {
  put32(out, std::uint32_t(data.size()));
  const std::size_t start = out.size();
  out.append(type, 4);
  out += data;
  put32(out, crc32(out.data() + start, out.size() - start));
}

// The zlib stream of `raw`: compressed with zlib when available, else stored blocks.
std::string stored_stream(const std::string& raw) {
  std::string out;
  out += char(0x78), out += char(0x01);  // deflate, 32K window; (0x7801 % 31 == 0)
  std::size_t pos = 0;
  do {
    const std::size_t len = std::min<std::size_t>(65535, raw.size() - pos);
    const bool last = pos + len == raw.size();
    out += char(last ? 1 : 0);  // BFINAL, BTYPE = 00 (stored)
    out += char(len & 0xff), out += char(len >> 8);
    out += char(~len & 0xff), out += char((~len >> 8) & 0xff);
    out.append(raw, pos, len);
    pos += len;
  } while (pos < raw.size());
  put32(out, adler32(raw.data(), raw.size()));
  return out;
}

std::string zlib_stream(const std::string& raw, bool stored) {
  if (stored) return stored_stream(raw);
#if NBODY_HAVE_ZLIB
  uLongf n = compressBound(uLong(raw.size()));
  std::string out(n, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(raw.data()),
                           uLong(raw.size()), 6);
  if (rc != Z_OK) throw_runtime_error("png: zlib compress2 failed (" + std::to_string(rc) + ")");
  out.resize(n);
  return out;
#else
  return stored_stream(raw);
#endif
}

}  // namespace

std::uint32_t crc32(const void* data, std::size_t n, std::uint32_t crc) {
  static const std::array<std::uint32_t, 256> table = make_crc_table();
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::uint32_t c = crc ^ 0xffffffffu;
  for (std::size_t k = 0; k < n; ++k) c = table[(c ^ p[k]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

std::uint32_t adler32(const void* data, std::size_t n, std::uint32_t adler) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::uint32_t a = adler & 0xffff, b = adler >> 16;
  for (std::size_t k = 0; k < n; ++k) {
    a = (a + p[k]) % 65521u;
    b = (b + a) % 65521u;
  }
  return (b << 16) | a;
}

bool compressed() noexcept { return NBODY_HAVE_ZLIB != 0; }

std::string encode(const Image& img, const TextChunks& text, bool stored) {
  if (img.width < 1 || img.height < 1 || img.width > (1 << 24) || img.height > (1 << 24))
    throw_input_error("png: bad image size " + std::to_string(img.width) + " x " + std::to_string(img.height));
  if (img.rgb.size() != std::size_t(img.width) * std::size_t(img.height) * 3)
    throw_input_error("png: the pixel buffer does not match the image size");
  std::string out("\x89PNG\r\n\x1a\n", 8);
  std::string ihdr;
  put32(ihdr, std::uint32_t(img.width));
  put32(ihdr, std::uint32_t(img.height));
  ihdr += char(8);  // bit depth
  ihdr += char(2);  // colour type: RGB
  ihdr += char(0), ihdr += char(0), ihdr += char(0);  // compression, filter, interlace
  chunk(out, "IHDR", ihdr);
  for (const auto& [key, value] : text) {
    if (key.empty() || key.size() > 79) throw_input_error("png: text keyword '" + key + "' must have 1-79 characters");
    std::string t = key;
    t += '\0';
    t += value;
    chunk(out, "tEXt", t);
  }
  const std::size_t row = std::size_t(img.width) * 3;
  std::string raw;
  raw.reserve((row + 1) * std::size_t(img.height));
  for (int y = 0; y < img.height; ++y) {
    raw += char(0);  // filter: none
    raw.append(reinterpret_cast<const char*>(img.rgb.data()) + std::size_t(y) * row, row);
  }
  chunk(out, "IDAT", zlib_stream(raw, stored));
  chunk(out, "IEND", "");
  return out;
}

void write(const std::filesystem::path& path, const Image& image, const TextChunks& text) {
  write_file_atomic(path, encode(image, text));
}

}  // namespace nbody::png
