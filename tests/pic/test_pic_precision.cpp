// The float32 particle store's host side (label cpu): the encoding of positions as a cell and
// float32 offsets (pic/physics/particle_precision.hpp), its exact round trip through float64 (what
// makes a float32 run's checkpoint restore its bits), the snap that ends the deposit's move at
// the stored position (charge conservation), solver.particle_precision in the deck, and the
// precision a checkpoint records.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "nbody/error.hpp"
#include "pic/driver/config.hpp"
#include "pic/output/checkpoint.hpp"
#include "pic/physics/particle_precision.hpp"
#include "pic/physics/particle_step.hpp"
#include "pic_test_util.hpp"

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;

bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Grids with an origin far from 0 and cells that are not powers of two, the largest one wide.
const CellCoords kGrids[] = {cell_coords(0, 0, 0.02, 0.04, 64, 4), cell_coords(-3.7, 12.25, 0.005, 0.01, 4000, 1600),
                              cell_coords(1e3, -2e3, 0.3, 0.17, 1 << 20, 8), cell_coords(0.5, 0.25, 0.1, 0.1, 3, 65537)};

// decode(encode(xi)) is within half the quantum, 2^-25 cell, of any xi inside the grid (but the
// last 2^-25 cell, clamped to the last offset); and the
// position decoded to float64 in physical units encodes back to the same cell and offsets.
TEST(PicFloat32Store, PositionsRoundTripExactlyThroughFloat64) {
  std::mt19937_64 rng(5);
  for (const CellCoords& c : kGrids) {
    std::uniform_real_distribution<double> ux(0, c.nx), uy(0, c.ny);
    for (int k = 0; k < 200000; ++k) {
      double xi = ux(rng), yi = uy(rng);
      if (k % 4 == 1) xi = std::floor(xi);                   // on a cell edge
      if (k % 4 == 2) xi = std::floor(xi) + 1e-12;           // just above one
      if (k % 4 == 3) yi = std::floor(yi) + 1 - 1e-12;       // just below one
      const double x = c.x0 + xi * c.dx, y = c.y0 + yi * c.dy;
      const PackedPosition p = encode_position(x, y, c);
      ASSERT_LT(p.cell >> c.shift, std::uint32_t(c.ny));
      ASSERT_LT(p.cell & ((1u << c.shift) - 1u), std::uint32_t(c.nx));
      ASSERT_TRUE(p.ox >= 0.0f && p.ox < 1.0f && p.oy >= 0.0f && p.oy < 1.0f);
      ASSERT_EQ(double(p.ox), std::ldexp(std::rint(std::ldexp(double(p.ox), 24)), -24)) << "a multiple of 2^-24";
      double xd = 0, yd = 0;
      decode_position(p, c, xd, yd);
      // (within 2^-25 cell of the grid's upper edge the position is clamped to the last offset,
      // 1 - 2^-24: up to 2^-24 cell; the float64 rounding of x adds ~1e-16 of it)
      const auto bound = [](double v, int n) { return (v >= n - 0x1.0p-25 ? 0x1.0p-24 : 0x1.0p-25) + 1e-9; };
      EXPECT_LE(std::fabs((xd - x) / c.dx), bound(xi, c.nx)) << xi;
      EXPECT_LE(std::fabs((yd - y) / c.dy), bound(yi, c.ny)) << yi;
      const PackedPosition q = encode_position(xd, yd, c);
      ASSERT_EQ(q.cell, p.cell) << xi << " " << yi;
      ASSERT_TRUE(same(q.ox, p.ox) && same(q.oy, p.oy)) << xi << " " << yi;
    }
  }
}

// Outside the grid a coordinate is clamped to its first or last cell; a round-up to 1 goes to the
// next cell's offset 0.
TEST(PicFloat32Store, EdgesAndRoundUps) {
  const CellCoords c = cell_coords(0, 0, 1, 1, 8, 8);
  int i = -1;
  float o = -1;
  encode_axis(3 + (1 - 0x1.0p-30), 8, i, o);
  EXPECT_EQ(i, 4);
  EXPECT_EQ(o, 0.0f);
  encode_axis(-0.25, 8, i, o);
  EXPECT_EQ(i, 0);
  EXPECT_EQ(o, 0.0f);
  encode_axis(8.0, 8, i, o);
  EXPECT_EQ(i, 7);
  EXPECT_EQ(double(o), 1 - 0x1.0p-24);
  encode_axis(std::nan(""), 8, i, o);
  EXPECT_EQ(i, 0);
  const PackedPosition p = encode_position(2.5, 7.25, c);
  EXPECT_EQ(p.cell, 7u * 8u + 2u);  // (row << 3 | column)
  const CellCoords odd = cell_coords(0, 0, 1, 1, 1400, 800);
  EXPECT_EQ(odd.shift, 11);
  EXPECT_EQ(encode_position(1399.5, 799.5, odd).cell, (799u << 11) | 1399u);
  EXPECT_TRUE(cells_fit_32_bits(65536, 65536));
  EXPECT_FALSE(cells_fit_32_bits(65537, 32769));
  EXPECT_EQ(p.ox, 0.5f);
  EXPECT_EQ(p.oy, 0.25f);
}

// round_to_float32_store is what the store holds: a fixed point (rounding twice changes nothing).
TEST(PicFloat32Store, RoundingIsAFixedPoint) {
  Species s;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-3, 3), x(0, 1.28), y(0, 0.16);
  for (int k = 0; k < 10000; ++k) s.push_back(x(rng), y(rng), u(rng), u(rng), u(rng), std::fabs(u(rng)));
  GridGeometry g;
  g.nx = 64, g.ny = 4, g.dx = 0.02, g.dy = 0.04;
  const CellCoords c = store_cells_of(g);
  Species once = s;
  round_to_float32_store(once, c);
  Species twice = once;
  round_to_float32_store(twice, c);
  for (std::size_t p = 0; p < s.size(); ++p) {
    ASSERT_TRUE(same(once.x[p], twice.x[p]) && same(once.y[p], twice.y[p]));
    ASSERT_TRUE(same(once.ux[p], twice.ux[p]) && same(once.w[p], twice.w[p]));
    EXPECT_EQ(once.ux[p], double(float(s.ux[p])));
    // (2^-25 cell, 2^-24 within 2^-25 cell of the upper edge: clamped to the last offset)
    const double edge = (s.x[p] - c.x0) / c.dx >= c.nx - 0x1.0p-25 ? 2 : 1;
    EXPECT_LE(std::fabs(once.x[p] - s.x[p]), edge * 0x1.0p-25 * c.dx * (1 + 1e-9));
  }
}

// With the float32 store the move a particle deposits ends where the store will put it: the new
// position decoded from the stored bits is the deposit's end, bit for bit (no wrap), so the next
// step's deposit starts where this one ended and Esirkepov's continuity holds across steps to
// float64 rounding. Through a periodic wrap the two differ by the rounding of x1 + L - L.
TEST(PicFloat32Store, TheDepositEndsAtTheStoredPosition) {
  PicSettings s;
  s.geom.nx = 64, s.geom.ny = 4, s.geom.dx = 0.02, s.geom.dy = 0.04, s.geom.x0 = -0.5;
  s.dt = 0.01;
  Species e = test::electrons();
  const PushParams base = make_push_params(s, e, 0);
  PushParams pp = base;
  pp.float32_store = true;
  pp.store_cells = store_cells_of(s.geom);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> ux(-3, 3), xi(0, 64), yi(0, 4);
  int wrapped = 0, snapped = 0;
  for (int k = 0; k < 100000; ++k) {
    ParticleRef r{s.geom.x0 + xi(rng) * s.geom.dx, yi(rng) * s.geom.dy, ux(rng), ux(rng), ux(rng), 1};
    // (the state as the store holds it)
    decode_position(encode_position(r.x, r.y, pp.store_cells), pp.store_cells, r.x, r.y);
    const Vec3d E{0.1, -0.2, 0.3}, B{0.5, 0.1, -0.4};
    const ParticleMove plain = push_and_move(r, std::uint64_t(k), E, B, base);
    const ParticleMove mv = push_and_move(r, std::uint64_t(k), E, B, pp);
    ASSERT_TRUE(mv.keep);
    EXPECT_LE(std::fabs(mv.x1 - plain.x1) / s.geom.dx, 0x1.0p-25 * (1 + 1e-6));
    snapped += mv.x1 != plain.x1;
    ParticleRef next = r;
    ASSERT_TRUE(finish_move(next, mv, pp));
    double x = 0, y = 0;
    decode_position(encode_position(next.x, next.y, pp.store_cells), pp.store_cells, x, y);
    if (mv.wrap_x == 0 && mv.wrap_y == 0) {
      ASSERT_TRUE(same(x, mv.x1) && same(y, mv.y1)) << k;
    } else {
      ++wrapped;
      EXPECT_LE(std::fabs(x - mv.wrap_x - mv.x1), 1e-15);  // (two roundings of numbers below 2)
    }
  }
  EXPECT_GT(snapped, 50000) << "the snap moved almost every end";
  EXPECT_GT(wrapped, 0);
}

// solver.particle_precision: float64 (the default) or float32; anything else, and float32 on the
// CPU path, is one error naming the key, the value and the deck.
TEST(PicFloat32Store, DeckKey) {
  const fs::path d = test::temp_dir("precision");
  const fs::path deck = d / "deck.toml";
  std::ofstream(deck) << "[grid]\nnx = 16\nny = 4\ndx = 0.05\ndy = 0.05\n[time]\nsteps = 2\n"
                         "[[species]]\nname = \"electron\"\nppc = 1\ndensity = 0.1\n";
  EXPECT_EQ(read_pic_config(deck.string(), {}).particle_precision, ParticlePrecision::float64);
  EXPECT_EQ(read_pic_config(deck.string(), {"solver.particle_precision=float64"}).particle_precision,
            ParticlePrecision::float64);
  auto error_of = [&](const std::string& set) {
    try {
      (void)read_pic_config(deck.string(), {set});
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_status(), 2);
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string bad = error_of("solver.particle_precision=float16");
  EXPECT_NE(bad.find("solver.particle_precision: 'float16' is not one of float64, float32"), std::string::npos) << bad;
  EXPECT_NE(bad.find(deck.string()), std::string::npos) << bad;
  const std::string cpu = error_of("solver.particle_precision=float32");
  EXPECT_NE(cpu.find("solver.particle_precision: \"float32\""), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("solver.device = \"cuda\""), std::string::npos) << cpu;
  EXPECT_NE(cpu.find(deck.string()), std::string::npos) << cpu;
  EXPECT_NE(error_of("solver.particle_precision=32").find("solver.particle_precision: must be a string"), std::string::npos);
  // (a row and a column in 32 bits: 70000 columns take 17 bits, 40000 rows 16)
  auto grid_error = [&] {
    try {
      (void)read_pic_config(deck.string(), {"solver.particle_precision=float32", "grid.nx=70000", "grid.ny=40000"});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(grid_error().find("solver.particle_precision: \"float32\" packs a cell's row and column in 32 bits"),
            std::string::npos)
      << grid_error();
}

// A checkpoint records a float32 run's precision (a float64 run's file is as before) and a load
// with the other precision is refused, naming both.
TEST(PicFloat32Store, CheckpointRecordsThePrecision) {
  const fs::path d = test::temp_dir("ckprec");
  PicSettings s;
  s.geom.nx = 16, s.geom.ny = 4, s.geom.dx = 0.05, s.geom.dy = 0.05;
  s.dt = 0.02;
  PicSimulation a(s);
  Species e = test::electrons();
  for (int k = 0; k < 10; ++k) e.push_back(0.05 * k + 0.01, 0.1, 0.1 * k, 0, 0, 1);
  a.add_species(e);
  round_to_float32_store(a.species()[0], store_cells_of(s.geom));
  const std::string f32 = (d / "f32.ckpt").string(), f64 = (d / "f64.ckpt").string();
  save_pic_checkpoint(f32, a, nullptr, ParticlePrecision::float32);
  save_pic_checkpoint(f64, a, nullptr);
  EXPECT_EQ(fs::file_size(f32), fs::file_size(f64) + 8) << "the record: a tag and a word";
  auto refusal = [&](const std::string& file, ParticlePrecision p) {
    PicSimulation b(s);
    b.add_species(test::electrons());
    try {
      (void)load_pic_checkpoint(file, b, true, p);
    } catch (const Error& err) {
      EXPECT_EQ(err.exit_status(), 2);
      return std::string(err.what());
    }
    for (std::size_t k = 0; k < a.species()[0].size(); ++k) EXPECT_TRUE(same(a.species()[0].x[k], b.species()[0].x[k]));
    return std::string();
  };
  EXPECT_EQ(refusal(f32, ParticlePrecision::float32), "");
  EXPECT_EQ(refusal(f64, ParticlePrecision::float64), "");
  const std::string to64 = refusal(f32, ParticlePrecision::float64);
  EXPECT_NE(to64.find("solver.particle_precision = \"float32\", the configuration has \"float64\""), std::string::npos) << to64;
  EXPECT_NE(to64.find(f32), std::string::npos) << to64;
  const std::string to32 = refusal(f64, ParticlePrecision::float32);
  EXPECT_NE(to32.find("solver.particle_precision = \"float64\", the configuration has \"float32\""), std::string::npos) << to32;
}

}  // namespace
}  // namespace nbody::pic
