// The named outputs of a PIC deck: [[output.fields]] / [[output.particles]] dumps holding what
// they select (read back with openpmd_read), [[output.probe]] time series against a plane wave,
// both byte for byte across a resume, and one error line per bad value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "nbody/error.hpp"
#include "pic/driver/config.hpp"
#include "pic/driver/run.hpp"
#include "pic/output/field_probe.hpp"
#include "pic/output/openpmd.hpp"
#include "pic/output/openpmd_read.hpp"
#include "pic_test_util.hpp"

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;

// A small plasma slab hit by a laser (open along x): every species has particles that move.
const char* kSlab = R"(
[grid]
nx = 64
ny = 4
dx = 0.02
dy = 0.04
boundary_x = "open"
[time]
steps = 20
courant = 0.95
[solver]
shape = "tsc"
[laser]
a0 = 1.0
duration = 2.0
[[species]]
name = "electron"
ppc = 4
density = 2.0
x_start = 0.4
temperature_keV = 1.0
boundary_xmin = "absorb"
boundary_xmax = "absorb"
[[species]]
name = "proton"
ppc = 2
density = 2.0
x_start = 0.4
boundary_xmin = "absorb"
boundary_xmax = "absorb"
)";

// A linearly polarised flat-top plane wave (a0 = 0.01, rise 1 period) entering a box of 10
// wavelengths from the left, a thin tenuous plasma at its far end; two probes an eighth of a
// wavelength apart in vacuum (the near one on an Ey node, the far one midway between two).
const char* kWave = R"(
[grid]
nx = 200
ny = 1
dx = 0.05
dy = 1.0
boundary_x = "open"
[time]
steps = 300
courant = 0.98
[solver]
shape = "cic"
[laser]
a0 = 0.01
polarisation = "linear"
envelope = "flattop"
rise = 1.0
duration = 100.0
[[species]]
name = "electron"
ppc = 1
density = 0.0001
x_start = 9.5
boundary_xmin = "absorb"
boundary_xmax = "absorb"
[[output.probe]]
name = "near"
x = 2.0
y = 0.5
fields = ["Ey", "Bz"]
every = 1
[[output.probe]]
name = "far"
x = 2.125
y = 0.5
every = 1
)";

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The deck's text read with these overrides, into a run directory `out`.
PicConfig deck(const std::string& text, const std::vector<std::string>& set, const fs::path& out,
               std::int64_t steps = 0) {
  PicFlags f;
  f.out = out.string();
  if (steps > 0) f.steps = steps;
  return read_pic_config_text(text, "outputs_test.toml", set, f);
}

std::string error_of(const std::string& text) {
  try {
    (void)read_pic_config_text(text, "bad.toml", {}, {});
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_status(), 2);
    return e.what();
  }
  return "";
}

TEST(PicOutputsConfig, EachBadValueIsOneLineNamingKeyValueAndDeck) {
  const std::string base = std::string(kSlab) + "[output]\ndir = \"unused\"\n";
  struct Case {
    const char* table;
    const char* key;
    const char* value;
  };
  const Case cases[] = {
      {"[[output.fields]]\nname = \"f\"\nevery = 10\nfields = [\"Ex\", \"Q\"]\n", "output.fields[0].fields", "'Q'"},
      {"[[output.fields]]\nname = \"f\"\nevery = 0\n", "output.fields[0].every", "0"},
      {"[[output.fields]]\nevery = 5\n", "output.fields[0].name", "missing"},
      {"[[output.fields]]\nname = \"a/b\"\nevery = 5\n", "output.fields[0].name", "'a/b'"},
      {"[[output.particles]]\nname = \"p\"\nevery = 5\nspecies = [\"muon\"]\n", "output.particles[0].species", "'muon'"},
      {"[[output.particles]]\nname = \"p\"\nevery = 5\nfraction = 1.5\nseed = 1\n", "output.particles[0].fraction", "1.5"},
      {"[[output.particles]]\nname = \"p\"\nevery = 5\nfraction = 0.5\n", "output.particles[0].seed", "missing"},
      {"[[output.particles]]\nname = \"p\"\nevery = 5\nevery_kth = 0\n", "output.particles[0].every_kth", "0"},
      {"[[output.particles]]\nname = \"p\"\nevery = 5\nwhat = 1\n", "output.particles[0].what", "unknown key"},
      {"[[output.fields]]\nname = \"p\"\nevery = 5\n[[output.particles]]\nname = \"p\"\nevery = 5\n",
       "output.particles[0].name", "'p'"},
      {"[[output.probe]]\nname = \"q\"\nevery = 1\nx = 7.0\ny = 0.0\n", "output.probe[0].x", "7"},
      {"[[output.probe]]\nname = \"q\"\nevery = 1\ny = 0.0\n", "output.probe[0].x", "missing"},
      {"[[output.probe]]\nname = \"q\"\nevery = 1\nx = 0.5\ny = 0.0\nfields = [\"rho\"]\n", "output.probe[0].fields",
       "'rho'"},
  };
  for (const Case& k : cases) {
    const std::string m = error_of(base + k.table);
    EXPECT_NE(m.find(k.key), std::string::npos) << m;
    EXPECT_NE(m.find(k.value), std::string::npos) << m;
    EXPECT_NE(m.find("bad.toml"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  // Named outputs need a directory.
  const std::string m = error_of(std::string(kSlab) + "[[output.probe]]\nname = \"q\"\nevery = 1\nx = 0.5\ny = 0.0\n");
  EXPECT_NE(m.find("output.probe[0]"), std::string::npos) << m;
  EXPECT_NE(m.find("output.dir"), std::string::npos) << m;
}

TEST(PicOutputsConfig, ExistingOutputKeysKeepTheirMeaning) {
  const PicConfig c = deck(std::string(kSlab) + "[output]\nfields_every = 5\ndiag_every = 2\n", {}, temp_dir("keys") / "r");
  EXPECT_EQ(c.fields_every, 5);
  EXPECT_EQ(c.diag_every, 2);
  EXPECT_TRUE(c.dumps.empty());
  EXPECT_TRUE(c.probes.empty());
}

#if NBODY_HAVE_HDF5
// Three dumps at their own intervals: two field components; the electrons every third id without
// ids; both species, half of them drawn with a seed, with ids. Each file holds exactly that.
TEST(PicOutputs, DumpsHoldExactlyWhatTheySelect) {
  const fs::path d = temp_dir("select");
  const std::string text = std::string(kSlab) +
                           "[[output.fields]]\nname = \"maps\"\nevery = 10\nfields = [\"Ey\", \"rho\"]\n"
                           "[[output.particles]]\nname = \"thin\"\nevery = 20\nspecies = [\"electron\"]\n"
                           "every_kth = 3\nids = false\n"
                           "[[output.particles]]\nname = \"half\"\nevery = 15\nfraction = 0.5\nseed = 7\n";
  const PicConfig c = deck(text, {}, d / "run");
  ASSERT_EQ(c.dumps.size(), 3u);
  PicSimulation sim = build_pic_simulation(c);
  (void)run_pic(c, sim);
  ASSERT_TRUE(sim.has_particle_ids());
  auto steps_in = [&](const std::string& name) {
    std::set<std::int64_t> s;
    for (const auto& e : fs::directory_iterator(d / "run" / "dumps" / name)) s.insert(read_openpmd_contents(e.path().string()).step);
    return s;
  };
  EXPECT_EQ(steps_in("maps"), (std::set<std::int64_t>{0, 10, 20}));
  EXPECT_EQ(steps_in("thin"), (std::set<std::int64_t>{0, 20}));
  EXPECT_EQ(steps_in("half"), (std::set<std::int64_t>{0, 15, 20}));  // (20: the end of the run)

  const OpenPmdContents maps = read_openpmd_contents((d / "run/dumps/maps/pic_00000020.h5").string());
  EXPECT_EQ(maps.fields, (std::vector<std::string>{"Ey", "rho"}));
  EXPECT_TRUE(maps.species.empty());

  const OpenPmdContents thin = read_openpmd_contents((d / "run/dumps/thin/pic_00000020.h5").string());
  EXPECT_TRUE(thin.fields.empty());
  ASSERT_EQ(thin.species.size(), 1u);
  const OpenPmdContents::Particles& te = thin.species.at("electron");
  EXPECT_FALSE(te.has_ids);
  std::vector<double> want_x;
  for (std::size_t p = 0; p < sim.species()[0].size(); ++p)
    if (sim.particle_ids()[0][p] % 3 == 0) want_x.push_back(sim.species()[0].x[p]);
  EXPECT_GT(want_x.size(), 10u);
  EXPECT_EQ(te.x, want_x);

  const OpenPmdContents half = read_openpmd_contents((d / "run/dumps/half/pic_00000020.h5").string());
  ASSERT_EQ(half.species.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const Species& s = sim.species()[k];
    const OpenPmdContents::Particles& got = half.species.at(s.name);
    EXPECT_TRUE(got.has_ids);
    std::vector<std::uint64_t> ids;
    std::vector<double> xs;
    for (std::size_t p = 0; p < s.size(); ++p)
      if (c.dumps[2].selection.keeps(sim.particle_ids()[k][p])) ids.push_back(sim.particle_ids()[k][p]), xs.push_back(s.x[p]);
    EXPECT_EQ(got.ids, ids) << s.name;
    EXPECT_EQ(got.x, xs) << s.name;
    // About half, drawn by id: neither all nor none.
    EXPECT_GT(double(ids.size()), 0.4 * double(s.size())) << s.name;
    EXPECT_LT(double(ids.size()), 0.6 * double(s.size())) << s.name;
  }
  // The same draw at step 0 for the particles still present: a particle is in or out by its id.
  const OpenPmdContents first = read_openpmd_contents((d / "run/dumps/half/pic_00000000.h5").string());
  const std::set<std::uint64_t> at0(first.species.at("electron").ids.begin(), first.species.at("electron").ids.end());
  for (std::size_t p = 0; p < sim.species()[0].size(); ++p) {
    const std::uint64_t id = sim.particle_ids()[0][p];
    EXPECT_EQ(at0.count(id) == 1, c.dumps[2].selection.keeps(id)) << id;
  }
}
#endif

// The probe's interpolation on a field known on the grid: Ey = cos(k x) at its Yee position reads
// back as cos(k x) at the probe, to second order in k dx, with CIC and with TSC.
TEST(PicProbe, InterpolatesAKnownFieldAsTheGather) {
  for (ShapeOrder shape : {ShapeOrder::cic, ShapeOrder::tsc}) {
    PicSettings s = test::periodic_settings(64, 4, 0.1, 0.1, 0.05);
    s.shape = shape;
    PicSimulation sim(s);
    const double k = 2 * kPi / (64 * 0.1);
    Fields& f = sim.fields();
    for (int j = -kGuard; j < 4 + kGuard; ++j)
      for (int i = -kGuard; i < 64 + kGuard; ++i) {
        f.at(kEy, i, j) = std::cos(k * i * 0.1);          // Ey at (i, j + 1/2)
        f.at(kBz, i, j) = std::sin(k * (i + 0.5) * 0.1);  // Bz at (i + 1/2, j + 1/2)
      }
    FieldProbe p;
    p.fields = {kBz, kEy};
    for (double x : {1.0, 2.37, 3.05}) {
      p.x = x, p.y = 0.21;
      const std::vector<double> v = sample_probe(sim, p);
      ASSERT_EQ(v.size(), 2u);
      EXPECT_NEAR(v[1], std::cos(k * x), 0.01) << x;
      EXPECT_NEAR(v[0], std::sin(k * x), 0.01) << x;
    }
  }
}

// The CSV's columns: the probe's time series.
struct Series {
  std::vector<double> t, a, b;
};
Series read_series(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  Series s;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("# probe ", 0), 0u) << line;
  EXPECT_NE(line.find("CIC"), std::string::npos) << line;
  EXPECT_NE(line.find("V/m"), std::string::npos) << line;
  std::getline(in, line);
  std::string want = "step,time_periods,Ey,Bz";
  if (p.filename() == "far.csv") want = "step,time_periods,Ex,Ey,Ez,Bx,By,Bz";
  EXPECT_EQ(line, want);
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) v.push_back(std::stod(x));
    s.t.push_back(v[1]);
    s.a.push_back(v[p.filename() == "far.csv" ? 3 : 2]);  // Ey
    s.b.push_back(v[p.filename() == "far.csv" ? 7 : 3]);  // Bz
  }
  return s;
}

// A plane wave through two probes an eighth of a wavelength apart: amplitude a0, frequency
// omega0, Bz = Ey (a wave going +x) and the far probe's phase behind by k/8, each as the Yee grid
// and the CIC gather give them (to 0.05% and 0.3%).
TEST(PicProbe, MeasuresAPlaneWavesAmplitudeAndPhase) {
  const fs::path d = temp_dir("probe_wave");
  const PicConfig c = deck(kWave, {}, d / "run");
  PicSimulation sim = build_pic_simulation(c);
  (void)run_pic(c, sim);
  const Series near = read_series(d / "run/probes/near.csv"), far = read_series(d / "run/probes/far.csv");
  ASSERT_EQ(near.t.size(), 301u);
  ASSERT_EQ(far.t.size(), 301u);
  // The plateau: from 4 periods (the front has passed x = 2 after its rise) to the end, a whole
  // number of periods.
  const double t_end = near.t.back(), t0 = t_end - std::floor(t_end - 4.0);
  double ee = 0, eb = 0, ef = 0, n = 0;
  std::vector<double> plateau;
  for (std::size_t k = 0; k < near.t.size(); ++k) {
    if (near.t[k] < t0) continue;
    ee += near.a[k] * near.a[k], eb += near.a[k] * near.b[k], ef += near.a[k] * far.a[k], n += 1;
    plateau.push_back(near.a[k]);
  }
  const double amplitude = std::sqrt(2 * ee / n);
  // What the Yee grid and the gather predict: the wave's numerical wavenumber kn (sin(kn dx/2) =
  // dx/(c dt) sin(omega dt/2)); Bz, staggered by half a cell, interpolated (CIC) midway between
  // two nodes: a factor cos(kn dx/2), and taken at t as the mean of its two half steps: cos(omega
  // dt/2); the far probe, kn/8 behind in phase, also midway between Ey's nodes.
  const double dt = near.t[1] - near.t[0];  // periods (c = 1 wavelength a period)
  const double half_k = std::asin(0.05 / dt * std::sin(kPi * dt));
  const double kn = 2 * half_k / 0.05;  // radians per wavelength
  std::printf("probe: Ey amplitude %.6f, <Ey Bz>/<Ey^2> %.6f (predicted %.6f), <Ey far>/<Ey^2> %.6f (predicted %.6f)\n",
              amplitude, eb / ee, std::cos(half_k) * std::cos(kPi * dt), ef / ee, std::cos(kn / 8) * std::cos(half_k));
  EXPECT_NEAR(amplitude / 0.01, 1.0, 0.01);
  EXPECT_NEAR(eb / ee, std::cos(half_k) * std::cos(kPi * dt), 5e-4);  // Bz = Ey, as the grid holds them
  EXPECT_NEAR(ef / ee, std::cos(kn / 8) * std::cos(half_k), 0.003);    // the phase lag of 1/8 wavelength
  EXPECT_NEAR(kn / (2 * kPi), 1.0, 0.01);
  EXPECT_NEAR(test::frequency_from_recurrence(plateau, dt) / (2 * kPi), 1.0, 0.005);  // omega0
  // Before the front arrives the probe reads nothing.
  EXPECT_EQ(near.a[0], 0.0);
}

// A run stopped at step 130 and resumed to 300 writes the probes' CSV and the dumps with the
// bytes of the run that never stopped (the dump at 130, the end of the short run, is dropped).
// Probes read fields alone: an engine whose state lives elsewhere (here the slabs of the
// deterministic deposition, one process) brings only the fields to the host for them, and the
// probes' rows are those of a run that brings the whole state every step (diagnostics every
// step, which come before the probes in a step's outputs), byte for byte.
TEST(PicProbe, BringOnlyTheFieldsToTheHost) {
  const fs::path d = temp_dir("probe_fields_only");
  const PicConfig fields_only = deck(kWave, {"solver.deposit=deterministic", "output.diag_every=20"}, d / "fields", 60);
  PicSimulation a = build_pic_simulation(fields_only);
  const PicRunResult ra = run_pic(fields_only, a);
  const PicConfig whole = deck(kWave, {"solver.deposit=deterministic", "output.diag_every=1"}, d / "whole", 60);
  PicSimulation b = build_pic_simulation(whole);
  const PicRunResult rb = run_pic(whole, b);
  ASSERT_EQ(ra.engine, "CPU slabs");
  // 61 probe rows (steps 0..60): step 0's host state is the one the run starts from, the
  // diagnostics of steps 20, 40 and 60 (the final checkpoint's step too) bring the whole state,
  // the 57 other rows the fields alone.
  EXPECT_EQ(ra.state_copies, 3);
  EXPECT_EQ(ra.field_copies, 57);
  EXPECT_EQ(rb.state_copies, 60);
  EXPECT_EQ(rb.field_copies, 0);
  for (const char* f : {"probes/near.csv", "probes/far.csv"}) {
    const std::string x = read_bytes(d / "fields" / f), y = read_bytes(d / "whole" / f);
    EXPECT_GT(x.size(), 1000u) << f;
    EXPECT_TRUE(x == y) << f << " differs";
  }
}

TEST(PicProbe, ResumedRunWritesTheSameBytes) {
  const fs::path d = temp_dir("probe_resume");
  const std::string text = std::string(kWave) +
                           "[[output.particles]]\nname = \"some\"\nevery = 100\nfraction = 0.5\nseed = 3\n"
                           "[[output.fields]]\nname = \"ey\"\nevery = 100\nfields = [\"Ey\"]\n";
  {
    const PicConfig c = deck(text, {}, d / "straight");
    PicSimulation sim = build_pic_simulation(c);
    (void)run_pic(c, sim);
  }
  {
    const PicConfig c = deck(text, {}, d / "run", 130);
    PicSimulation sim = build_pic_simulation(c);
    (void)run_pic(c, sim);
    ASSERT_TRUE(fs::exists(d / "run/dumps/ey/pic_00000130.h5"));
  }
  PicFlags more;
  more.steps = 300;
  const PicRunResult r = resume_pic(d / "run", {}, more);
  EXPECT_EQ(r.first_step, 130);
  for (const char* f : {"probes/near.csv", "probes/far.csv"}) {
    const std::string a = read_bytes(d / "straight" / f), b = read_bytes(d / "run" / f);
    EXPECT_GT(a.size(), 1000u) << f;
    EXPECT_TRUE(a == b) << f << " differs";
  }
#if NBODY_HAVE_HDF5
  for (const char* name : {"some", "ey"}) {
    std::set<std::string> a, b;
    for (const auto& e : fs::directory_iterator(d / "straight/dumps" / name)) a.insert(e.path().filename().string());
    for (const auto& e : fs::directory_iterator(d / "run/dumps" / name)) b.insert(e.path().filename().string());
    EXPECT_EQ(a, (std::set<std::string>{"pic_00000000.h5", "pic_00000100.h5", "pic_00000200.h5", "pic_00000300.h5"}));
    EXPECT_EQ(a, b) << name;
    for (const std::string& f : a)
      EXPECT_TRUE(read_bytes(d / "straight/dumps" / name / f) == read_bytes(d / "run/dumps" / name / f)) << name << "/" << f;
  }
#endif
}

}  // namespace
}  // namespace nbody::pic
