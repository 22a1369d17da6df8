// The program's own PNG images: the encoder (decoded here independently: chunk CRCs by a bitwise
// CRC-32, the image data inflated by zlib or read from stored blocks), the colour maps at known
// pixels, the phase-space histogram, and a run writing them (and refusing a bad key).
#include <gtest/gtest.h>

#include <unistd.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "io/png.hpp"
#include "pic/output/images.hpp"

#if NBODY_HAVE_ZLIB
#include <zlib.h>
#endif

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;

// Bit by bit, not the encoder's table: an independent check.
std::uint32_t crc_bitwise(const std::string& s) {
  std::uint32_t c = 0xffffffffu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t(std::uint8_t(s[at])) << 24) | (std::uint32_t(std::uint8_t(s[at + 1])) << 16) |
         (std::uint32_t(std::uint8_t(s[at + 2])) << 8) | std::uint32_t(std::uint8_t(s[at + 3]));
}

struct Decoded {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
  std::map<std::string, std::string> text;
  std::vector<std::string> chunks;
  bool stored = false;
};

// A stored-blocks zlib stream: header, blocks, Adler-32.
std::string inflate_stored(const std::string& z) {
  EXPECT_EQ((std::uint8_t(z[0]) * 256 + std::uint8_t(z[1])) % 31, 0) << "zlib header check";
  std::size_t p = 2;
  std::string out;
  for (;;) {
    const int head = std::uint8_t(z.at(p));
    EXPECT_EQ(head & 6, 0) << "a stored block";
    const std::size_t len = std::uint8_t(z.at(p + 1)) | (std::size_t(std::uint8_t(z.at(p + 2))) << 8);
    const std::size_t nlen = std::uint8_t(z.at(p + 3)) | (std::size_t(std::uint8_t(z.at(p + 4))) << 8);
    EXPECT_EQ(len ^ 0xffff, nlen);
    out += z.substr(p + 5, len);
    p += 5 + len;
    if (head & 1) break;
  }
  // Adler-32, computed here the slow way.
  std::uint32_t a = 1, b = 0;
  for (unsigned char c : out) a = (a + c) % 65521, b = (b + a) % 65521;
  EXPECT_EQ(be32(z, p), (b << 16) | a) << "Adler-32";
  EXPECT_EQ(p + 4, z.size());
  return out;
}

Decoded decode(const std::string& f) {
  Decoded d;
  EXPECT_EQ(f.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::size_t p = 8;
  std::string idat;
  while (p + 12 <= f.size()) {
    const std::uint32_t len = be32(f, p);
    const std::string type = f.substr(p + 4, 4), data = f.substr(p + 8, len);
    EXPECT_EQ(be32(f, p + 8 + len), crc_bitwise(type + data)) << "CRC of " << type;
    d.chunks.push_back(type);
    if (type == "IHDR") {
      d.width = int(be32(data, 0)), d.height = int(be32(data, 4));
      EXPECT_EQ(data[8], 8);
      EXPECT_EQ(data[9], 2);
    } else if (type == "tEXt") {
      const auto z = data.find('\0');
      d.text[data.substr(0, z)] = data.substr(z + 1);
    } else if (type == "IDAT") {
      idat += data;
    }
    p += 12 + len;
  }
  EXPECT_EQ(p, f.size());
  EXPECT_EQ(d.chunks.front(), "IHDR");
  EXPECT_EQ(d.chunks.back(), "IEND");
  std::string raw;
  // A stored stream's first block header has BTYPE 00.
  d.stored = (std::uint8_t(idat[2]) & 6) == 0;
  if (d.stored) {
    raw = inflate_stored(idat);
  } else {
#if NBODY_HAVE_ZLIB
    uLongf n = uLongf(d.height) * (uLongf(d.width) * 3 + 1);
    raw.assign(n, '\0');
    EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(raw.data()), &n, reinterpret_cast<const Bytef*>(idat.data()),
                         uLong(idat.size())),
              Z_OK);
    raw.resize(n);
#else
    ADD_FAILURE() << "compressed data in a build without zlib";
#endif
  }
  const std::size_t row = std::size_t(d.width) * 3;
  EXPECT_EQ(raw.size(), (row + 1) * std::size_t(d.height));
  for (int y = 0; y < d.height; ++y) {
    EXPECT_EQ(raw[std::size_t(y) * (row + 1)], 0) << "filter none";
    d.rgb.insert(d.rgb.end(), raw.begin() + std::ptrdiff_t(std::size_t(y) * (row + 1) + 1),
                 raw.begin() + std::ptrdiff_t(std::size_t(y + 1) * (row + 1)));
  }
  return d;
}

Rgb pixel(const Decoded& d, int x, int y) {
  const std::size_t k = (std::size_t(y) * std::size_t(d.width) + std::size_t(x)) * 3;
  return {d.rgb[k], d.rgb[k + 1], d.rgb[k + 2]};
}

TEST(PicPng, ChecksumsOfKnownStrings) {
  EXPECT_EQ(png::crc32("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(png::adler32("Wikipedia", 9), 0x11E60398u);
  EXPECT_EQ(png::crc32("", 0), 0u);
}

TEST(PicPng, EncodesPixelsDimensionsAndTextThatDecodeBack) {
  png::Image img(7, 5);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x) img.set(x, y, std::uint8_t(30 * x), std::uint8_t(50 * y), std::uint8_t(x * y));
  for (bool stored : {true, false}) {
    const std::string f = png::encode(img, {{"Min", "-1.5"}, {"Max", "1.5"}}, stored);
    EXPECT_EQ(f, png::encode(img, {{"Min", "-1.5"}, {"Max", "1.5"}}, stored)) << "deterministic bytes";
    const Decoded d = decode(f);
    EXPECT_EQ(d.width, 7);
    EXPECT_EQ(d.height, 5);
    EXPECT_EQ(d.rgb, img.rgb);
    EXPECT_EQ(d.text.at("Min"), "-1.5");
    EXPECT_EQ(d.text.at("Max"), "1.5");
    EXPECT_EQ(d.stored, stored || !png::compressed());
  }
  // More than one stored block (65535 bytes each).
  png::Image big(200, 150);
  for (std::size_t k = 0; k < big.rgb.size(); ++k) big.rgb[k] = std::uint8_t(k * 7);
  EXPECT_EQ(decode(png::encode(big, {}, true)).rgb, big.rgb);
  EXPECT_EQ(decode(png::encode(big)).rgb, big.rgb);
}

TEST(PicPng, ColourMapsHaveTheirAnchors) {
  EXPECT_EQ(diverging_colour(0.0), (Rgb{255, 255, 255}));
  EXPECT_EQ(diverging_colour(-1.0), (Rgb{30, 50, 170}));
  EXPECT_EQ(diverging_colour(1.0), (Rgb{160, 20, 30}));
  EXPECT_EQ(diverging_colour(7.0), diverging_colour(1.0));
  EXPECT_EQ(sequential_colour(0.0), (Rgb{255, 255, 255}));
  EXPECT_EQ(sequential_colour(1.0), (Rgb{80, 0, 40}));
  // Monotonic darkening of the sequential map (the sum of the channels falls).
  int last = 3 * 255 + 1;
  for (int k = 0; k <= 100; ++k) {
    const Rgb c = sequential_colour(k / 100.0);
    const int sum = c[0] + c[1] + c[2];
    EXPECT_LE(sum, last);
    last = sum;
  }
}

TEST(PicPng, FieldMapShowsAKnownPatternAtKnownPixels) {
  GridGeometry g;
  g.nx = 64, g.ny = 16, g.dx = 1, g.dy = 1;
  int w, h;
  field_image_size(g, w, h);
  EXPECT_EQ(w, 64);
  EXPECT_EQ(h, 32);  // 16 from the aspect ratio, raised to 32
  // v = (i - 32) / 2 + 0.25 j: largest |v| = 19.25 at node (63, 15), -16 at (0, 0).
  std::vector<double> v(std::size_t(g.nx * g.ny));
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) v[std::size_t(j * g.nx + i)] = 0.5 * (i - 32) + 0.25 * j;
  double range = 0;
  const Decoded d = decode(png::encode(field_map(g, v, true, range)));
  EXPECT_EQ(range, 19.25);
  const double scale = 1.0 / 19.25;
  ASSERT_EQ(d.width, 64);
  ASSERT_EQ(d.height, 32);
  // Top-right pixel: node (63, 15), the largest value: the map's dark red end.
  EXPECT_EQ(pixel(d, 63, 0), (Rgb{160, 20, 30}));
  // Bottom-left: node (0, 0), v = -16.
  EXPECT_EQ(pixel(d, 0, 31), diverging_colour(-16 * scale));
  // Node (32, 0) is zero: white; two pixel rows per node along y.
  EXPECT_EQ(pixel(d, 32, 31), (Rgb{255, 255, 255}));
  EXPECT_EQ(pixel(d, 32, 30), (Rgb{255, 255, 255}));
  // Top row shows j = 15: node (32, 15) has v = 3.75.
  EXPECT_EQ(pixel(d, 32, 0), diverging_colour(3.75 * scale));
  for (int py = 0; py < h; ++py)
    for (int px = 0; px < w; ++px) {
      int i, j;
      pixel_node(g, w, h, px, py, i, j);
      EXPECT_EQ(j, g.ny - 1 - py / 2);
      EXPECT_EQ(i, px);
      ASSERT_EQ(pixel(d, px, py), diverging_colour(v[std::size_t(j * g.nx + i)] * scale));
    }
  // Sequential: 0 white, the largest value dark red.
  std::vector<double> n(v.size(), 0.0);
  n[std::size_t(3 * g.nx + 10)] = 2.0;
  n[std::size_t(3 * g.nx + 11)] = 1.0;
  const Decoded s = decode(png::encode(field_map(g, n, false, range)));
  EXPECT_EQ(range, 2.0);
  EXPECT_EQ(pixel(s, 10, 31 - 2 * 3), (Rgb{80, 0, 40}));
  EXPECT_EQ(pixel(s, 11, 31 - 2 * 3), sequential_colour(0.5));
  EXPECT_EQ(pixel(s, 12, 31 - 2 * 3), (Rgb{255, 255, 255}));
}

TEST(PicPng, PhaseSpaceHistogramCountsEveryParticle) {
  GridGeometry g;
  g.nx = 40, g.ny = 4, g.dx = 0.5, g.dy = 0.5, g.x0 = -2;
  Species s;
  s.name = "e";
  // ux from -1 to 3 over 200 bins (0.02 each); x over 20 = 400 bins of 0.05.
  s.push_back(-2.0, 0, -1.0, 0, 0, 1);   // first x bin, first u bin
  s.push_back(17.99, 0, 3.0, 0, 0, 1);   // last x bin, last u bin (the maximum is clamped in)
  for (int k = 0; k < 10; ++k) s.push_back(5.01, 0, 1.005, 0, 0, 1);  // x bin 140, u bin 100
  s.push_back(5.01, 0, 1.005, 0, 0, 90);  // weight 90 in the same bin: 100 there
  const PhaseHistogram h = phase_histogram(s, g);
  EXPECT_EQ(h.nx_bins, 400);
  EXPECT_EQ(h.nu_bins, 200);
  EXPECT_EQ(h.u_lo, -1.0);
  EXPECT_EQ(h.u_hi, 3.0);
  double total = 0;
  for (double w : h.weight) total += w;
  EXPECT_EQ(total, 102.0);
  EXPECT_EQ(h.weight[0], 1.0);
  EXPECT_EQ(h.weight[std::size_t(199 * 400 + 399)], 1.0);
  EXPECT_EQ(h.weight[std::size_t(100 * 400 + 140)], 100.0);
  const Decoded d = decode(png::encode(phase_image(h)));
  EXPECT_EQ(d.width, 400);
  EXPECT_EQ(d.height, 200);
  // u up: bin (140, 100) is pixel row 99; the largest bin is dark red, one at 1/100 of it two
  // decades down (t = 0.6), an empty bin white.
  EXPECT_EQ(pixel(d, 140, 99), (Rgb{80, 0, 40}));
  EXPECT_EQ(pixel(d, 0, 199), sequential_colour(0.1 + 0.9 * 0.6));
  EXPECT_EQ(pixel(d, 399, 0), sequential_colour(0.1 + 0.9 * 0.6));
  EXPECT_EQ(pixel(d, 1, 199), (Rgb{255, 255, 255}));
}

const char* kRun = R"(
[grid]
nx = 48
ny = 8
dx = 0.02
dy = 0.04
[time]
steps = 6
courant = 0.9
[solver]
shape = "tsc"
[output]
images_every = 3
[[species]]
name = "electron"
ppc = 4
density = 2.0
temperature_keV = 1.0
drift_ux = 0.05
[[species]]
name = "proton"
ppc = 2
regular = true
density = 2.0
)";

int shell(const std::string& command, const fs::path& err) {
  const int s = std::system((command + " >/dev/null 2>" + err.string()).c_str());
  return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

TEST(PicPng, ARunWritesTheImagesAndRefusesABadKey) {
  const fs::path d = fs::temp_directory_path() / ("nbody_pic_png_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  const fs::path cfg = d / "pic.toml";
  std::ofstream(cfg) << kRun;
  const std::string exe = NBODY_EXE_PATH;
  ASSERT_EQ(shell(exe + " pic run --config " + cfg.string() + " --out " + (d / "o").string(), d / "e"), 0);
  for (const char* step : {"00000000", "00000003", "00000006"})
    for (const std::string name : {"Ey", "Ez", "Bz", "E_abs", "density_electron", "density_proton", "phase_electron",
                                   "phase_proton"}) {
      const fs::path f = d / "o" / "images" / (name + "_" + step + ".png");
      ASSERT_TRUE(fs::exists(f)) << f;
      std::ifstream in(f, std::ios::binary);
      const Decoded img = decode(std::string(std::istreambuf_iterator<char>(in), {}));
      EXPECT_EQ(img.text.at("Step"), std::to_string(std::stoi(step)));
      if (name.rfind("phase", 0) == 0) {
        EXPECT_EQ(img.width, 400);
        EXPECT_EQ(img.height, 200);
      } else {
        EXPECT_EQ(img.width, 48);
        EXPECT_EQ(img.height, 32);
      }
    }
  // A uniform proton density: every pixel of its map has the same colour (the top one).
  std::ifstream in(d / "o" / "images" / "density_proton_00000000.png", std::ios::binary);
  const Decoded p = decode(std::string(std::istreambuf_iterator<char>(in), {}));
  EXPECT_NEAR(std::stod(p.text.at("Max")), 2.0, 1e-9);
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) ASSERT_EQ(pixel(p, x, y), (Rgb{80, 0, 40}));
  for (const fs::directory_entry& e : fs::directory_iterator(d / "o" / "images"))
    EXPECT_EQ(e.path().extension(), ".png") << "no temporary file left";
  // Bad values: one line, exit status 2, nothing written.
  for (const std::string bad : {"output.images_every=-1", "output.images_every=true", "output.images_every=1.5"}) {
    EXPECT_EQ(shell(exe + " pic run --config " + cfg.string() + " --set " + bad + " --out " + (d / "bad").string(), d / "e"), 2)
        << bad;
    std::ifstream err(d / "e");
    std::string line, more;
    std::getline(err, line);
    EXPECT_NE(line.find("output.images_every"), std::string::npos) << line;
    EXPECT_FALSE(std::getline(err, more)) << "one line";
    EXPECT_FALSE(fs::exists(d / "bad"));
  }
  fs::remove_all(d);
}

}  // namespace
}  // namespace nbody::pic
