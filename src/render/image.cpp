#include "render/image.hpp"

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>

#include "io/atomic_file.hpp"
#include "nbody/error.hpp"

namespace nbody::render {
namespace {

// libpng reports errors through a callback that must not return: it records the message and
// longjmps back to the setjmp in the function that called libpng (no C++ object with a
// destructor lives between the two).
struct PngErrors {
  char message[256] = {0};
};

void on_error(png_structp png, png_const_charp msg) {
  auto* e = static_cast<PngErrors*>(png_get_error_ptr(png));
  std::snprintf(e->message, sizeof e->message, "%s", msg);
  png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

void append(png_structp png, png_bytep data, png_size_t n) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), n);
}
void no_flush(png_structp) {}

// Returns false with e.message set when libpng failed.
int png_filter_flags(PngFilters f) {
  switch (f) {
    case PngFilters::none: return PNG_FILTER_NONE;
    case PngFilters::sub: return PNG_FILTER_SUB;
    case PngFilters::up: return PNG_FILTER_UP;
    case PngFilters::paeth: return PNG_FILTER_PAETH;
    case PngFilters::adaptive: break;
  }
  return PNG_ALL_FILTERS;
}

bool encode_into(std::string* out, const Image* img, const png_text* text, int ntext, PngEncoding enc,
                 PngErrors* e) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, e, on_error, on_warning);
  if (png == nullptr) {
    std::snprintf(e->message, sizeof e->message, "out of memory");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    if (info == nullptr) std::snprintf(e->message, sizeof e->message, "out of memory");
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, out, append, no_flush);
  png_set_compression_level(png, enc.level);
  // libpng's default is every filter for a colour image (the same as PNG_ALL_FILTERS).
  if (enc.filters != PngFilters::adaptive) png_set_filter(png, PNG_FILTER_TYPE_BASE, png_filter_flags(enc.filters));
  png_set_IHDR(png, info, png_uint_32(img->width), png_uint_32(img->height), 8,
               img->channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (ntext > 0) png_set_text(png, info, text, ntext);
  png_write_info(png, info);
  const std::size_t row = std::size_t(img->width) * std::size_t(img->channels);
  for (int y = 0; y < img->height; ++y)
    png_write_row(png, const_cast<png_bytep>(img->pixels.data() + std::size_t(y) * row));
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return true;
}

// Reads `f` into img/text; false with e.message set when libpng failed.
bool decode_from(FILE* f, Image* img, TextChunks* text, PngErrors* e) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, e, on_error, on_warning);
  if (png == nullptr) {
    std::snprintf(e->message, sizeof e->message, "out of memory");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    if (info == nullptr) std::snprintf(e->message, sizeof e->message, "out of memory");
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_init_io(png, f);
  png_read_info(png, info);
  png_set_expand(png);  // palette and grey below 8 bits to 8 bits, tRNS to alpha
  png_set_strip_16(png);
  png_set_gray_to_rgb(png);
  png_read_update_info(png, info);
  img->width = int(png_get_image_width(png, info));
  img->height = int(png_get_image_height(png, info));
  img->channels = int(png_get_channels(png, info));
  img->pixels.assign(std::size_t(img->width) * std::size_t(img->height) * std::size_t(img->channels), 0);
  const std::size_t row = std::size_t(img->width) * std::size_t(img->channels);
  for (int y = 0; y < img->height; ++y) png_read_row(png, img->pixels.data() + std::size_t(y) * row, nullptr);
  png_read_end(png, info);
  png_textp t = nullptr;
  const int n = png_get_text(png, info, &t, nullptr);
  for (int k = 0; k < n; ++k) text->emplace_back(t[k].key, std::string(t[k].text, t[k].text_length));
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

}  // namespace

Image::Image(int w, int h, int c, Rgb fill) : width(w), height(h), channels(c) {
  if (w < 0 || h < 0 || (c != 3 && c != 4)) throw_input_error("render: bad image shape");
  pixels.resize(std::size_t(w) * std::size_t(h) * std::size_t(c));
  for (std::size_t k = 0; k < pixels.size(); k += std::size_t(c)) {
    pixels[k] = fill[0], pixels[k + 1] = fill[1], pixels[k + 2] = fill[2];
    if (c == 4) pixels[k + 3] = 255;
  }
}

std::string encode_png(const Image& img, const TextChunks& text, PngEncoding encoding) {
  if (encoding.level < 0 || encoding.level > 9)
    throw_input_error("png: zlib level " + std::to_string(encoding.level) + " is not in 0-9");
  if (img.width < 1 || img.height < 1 || img.width > (1 << 20) || img.height > (1 << 20))
    throw_input_error("png: bad image size " + std::to_string(img.width) + " x " + std::to_string(img.height));
  if ((img.channels != 3 && img.channels != 4) ||
      img.pixels.size() != std::size_t(img.width) * std::size_t(img.height) * std::size_t(img.channels))
    throw_input_error("png: the pixel buffer does not match the image size");
  std::vector<png_text> chunks(text.size());
  for (std::size_t k = 0; k < text.size(); ++k) {
    const auto& [key, value] = text[k];
    if (key.empty() || key.size() > 79) throw_input_error("png: text keyword '" + key + "' must have 1-79 characters");
    chunks[k] = png_text{};
    chunks[k].compression = PNG_TEXT_COMPRESSION_NONE;
    chunks[k].key = const_cast<char*>(key.c_str());
    chunks[k].text = const_cast<char*>(value.c_str());
    chunks[k].text_length = value.size();
  }
  std::string out;
  PngErrors e;
  if (!encode_into(&out, &img, chunks.data(), int(chunks.size()), encoding, &e))
    throw_runtime_error(std::string("png: libpng failed: ") + e.message);
  return out;
}

void write_png(const std::filesystem::path& path, const Image& image, const TextChunks& text, PngEncoding encoding) {
  write_file_atomic(path, encode_png(image, text, encoding));
}

std::string PngFile::text_value(const std::string& key) const {
  for (const auto& [k, v] : text)
    if (k == key) return v;
  return "";
}

PngFile read_png(const std::filesystem::path& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw_runtime_error("cannot read '" + path.string() + "': " + std::strerror(errno));
  unsigned char sig[8] = {0};
  if (std::fread(sig, 1, 8, f.get()) != 8 || png_sig_cmp(sig, 0, 8) != 0)
    throw_runtime_error("'" + path.string() + "' is no PNG file");
  std::rewind(f.get());
  PngFile r;
  PngErrors e;
  if (!decode_from(f.get(), &r.image, &r.text, &e))
    throw_runtime_error("cannot read '" + path.string() + "': " + e.message);
  return r;
}

}  // namespace nbody::render
