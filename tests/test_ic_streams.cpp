// Counter-based initial conditions: Philox-4x32-10 against its published known answers, and
// the models' per-body draws independent of n, of the index range drawn and of the thread count.
#include <omp.h>

#include <array>
#include <cstdlib>
#include <cstdint>
#include <string>

#include "core/philox.hpp"
#include "core/rng.hpp"
#include "ic/ic.hpp"
#include "nbody/error.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

// The known-answer vectors of Philox4x32-10 from Random123 (the reference implementation of
// Salmon et al. 2011), file tests/kat_vectors: (counter, key) -> output.
TEST(Philox, KnownAnswers) {
  using C = Philox4x32::Counter;
  using K = Philox4x32::Key;
  EXPECT_EQ(Philox4x32::apply(C{0, 0, 0, 0}, K{0, 0}), (C{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(Philox4x32::apply(C{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, K{0xffffffffu, 0xffffffffu}),
            (C{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(Philox4x32::apply(C{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, K{0xa4093822u, 0x299f31d0u}),
            (C{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(BodyRng, AStreamIsAPureFunctionOfSeedComponentAndIndex) {
  // Body 7's stream: its first draw is Philox of counter (0, component, 7, 0) under the seed.
  const std::uint64_t seed = 0x0123456789abcdefULL;
  BodyRng a(seed, 2, 7), b(seed, 2, 7);
  const Philox4x32::Counter block = Philox4x32::apply({0, 2, 7, 0}, {0x89abcdefu, 0x01234567u});
  const std::uint64_t first = a.next();
  EXPECT_EQ(first, std::uint64_t(block[0]) | std::uint64_t(block[1]) << 32);
  EXPECT_EQ(a.next(), std::uint64_t(block[2]) | std::uint64_t(block[3]) << 32);
  EXPECT_EQ(a.draws(), 2u);
  EXPECT_EQ(b.next(), first);
  // Another index, component or seed is another stream; an index above 2^32 uses the high word.
  EXPECT_NE(BodyRng(seed, 2, 8).next(), first);
  EXPECT_NE(BodyRng(seed, 3, 7).next(), first);
  EXPECT_NE(BodyRng(seed + 1, 2, 7).next(), first);
  EXPECT_NE(BodyRng(seed, 2, 7 + (std::uint64_t{1} << 32)).next(), first);
  // Uniforms in [0, 1) with mean 1/2 and variance 1/12 over many bodies' first draws.
  double sum = 0, sum2 = 0;
  const int count = 100000;
  for (int i = 0; i < count; ++i) {
    const double u = BodyRng(1, 0, std::uint64_t(i)).uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum2 += u * u;
  }
  EXPECT_NEAR(sum / count, 0.5, 5.0 * std::sqrt(1.0 / 12.0 / count));
  EXPECT_NEAR(sum2 / count - (sum / count) * (sum / count), 1.0 / 12.0, 1e-3);
}

IcRequest request_for(const std::string& name, std::int64_t n) {
  IcRequest req{name, n, 12345};
  if (name == "solar-system") {
    req.n = 10;
    req.model.units = "solar";
  }
  return req;
}

void expect_same_bodies(const Particles<double>& a, const Particles<double>& b, std::size_t a_from,
                        const std::string& what) {
  for (std::size_t k = 0; k < b.size(); ++k) {
    const std::size_t i = a_from + k;
    ASSERT_EQ(a.x[i], b.x[k]) << what << " body " << i;
    ASSERT_EQ(a.y[i], b.y[k]) << what << " body " << i;
    ASSERT_EQ(a.z[i], b.z[k]) << what << " body " << i;
    ASSERT_EQ(a.vx[i], b.vx[k]) << what << " body " << i;
    ASSERT_EQ(a.vy[i], b.vy[k]) << what << " body " << i;
    ASSERT_EQ(a.vz[i], b.vz[k]) << what << " body " << i;
    ASSERT_EQ(a.m[i], b.m[k]) << what << " body " << i;
    ASSERT_EQ(a.id[i], b.id[k]) << what << " body " << i;
  }
}

// Any index range drawn alone is the slice of the whole model's draws, for every model (ranges
// across the galaxies' component and galaxy boundaries included).
TEST(IcStreams, ARangeIsTheSliceOfTheWhole) {
  for (const auto& name : ic_names()) {
    const IcRequest req = request_for(name, 1000);
    const std::size_t n = static_cast<std::size_t>(req.n);
    const Particles<double> whole = draw_bodies(req, 0, n);
    ASSERT_EQ(whole.size(), n) << name;
    for (const auto& [begin, end] : std::array<std::pair<std::size_t, std::size_t>, 5>{
             {{0, n / 3}, {n / 3, n / 3 + 1}, {n / 7, n - n / 5}, {n - 1, n}, {n / 2, n / 2}}}) {
      const Particles<double> part = draw_bodies(req, begin, end);
      ASSERT_EQ(part.size(), end - begin) << name;
      expect_same_bodies(whole, part, begin, name + " [" + std::to_string(begin) + ", " + std::to_string(end) + ")");
    }
  }
}

// Body i's draws do not depend on how many bodies there are: the models whose per-body draws
// do not involve n (cube, plummer, king, hernquist) give the first 300 bodies of n = 300 and of
// n = 1000 alike (positions and velocities; the masses are 1/n).
TEST(IcStreams, ABodysDrawsDoNotDependOnN) {
  for (const std::string name : {"cube", "plummer", "king", "hernquist"}) {
    const Particles<double> small = draw_bodies(request_for(name, 300), 0, 300);
    const Particles<double> large = draw_bodies(request_for(name, 1000), 0, 300);
    EXPECT_EQ(small.x, large.x) << name;
    EXPECT_EQ(small.vz, large.vz) << name;
    EXPECT_EQ(small.id, large.id) << name;
  }
}

// The whole models (draws in parallel, then the global steps in index order) are the same bits
// on one thread and on several, and their first stage is draw_bodies.
TEST(IcStreams, ModelsAreTheSameOnAnyNumberOfThreads) {
  const int initial = omp_get_max_threads();
  for (const auto& name : ic_names()) {
    const IcRequest req = request_for(name, 6000);  // above the parallel threshold (2 x kParallelMinBodies)
    omp_set_num_threads(1);
    const Particles<double> one = make_initial_conditions(req);
    const Particles<double> drawn_one = draw_bodies(req, 0, static_cast<std::size_t>(req.n));
    omp_set_num_threads(4);
    const Particles<double> four = make_initial_conditions(req);
    const Particles<double> drawn_four = draw_bodies(req, 0, static_cast<std::size_t>(req.n));
    omp_set_num_threads(initial);
    expect_same_bodies(one, four, 0, name + " made on 1 and 4 threads");
    expect_same_bodies(drawn_one, drawn_four, 0, name + " drawn on 1 and 4 threads");
  }
}

// The program's initial conditions are the same bytes with OMP_NUM_THREADS=1 and 2: the run id
// (a hash of the configuration and of the initial bodies in float64) of the same run into the
// same directory.
TEST(IcStreams, TheProgramDrawsTheSameBodiesOnOneAndTwoThreads) {
  const std::string dir = temp_dir("ic_threads") + "/out";
  std::string ids[2];
  const char* before = std::getenv("OMP_NUM_THREADS");
  const std::string saved = before != nullptr ? before : "";
  for (int k = 0; k < 2; ++k) {
    ::setenv("OMP_NUM_THREADS", k == 0 ? "1" : "2", 1);
    const auto r = run_nbody("run --ic galaxy-collision -n 20000 --steps 0 --backend cpu --precision fp64 "
                             "--snapshot-every 0 --overwrite --out " + dir);
    EXPECT_EQ(r.status, 0) << r.err;
    ids[k] = read_text(dir + "/run_id");
  }
  if (before != nullptr) {
    ::setenv("OMP_NUM_THREADS", saved.c_str(), 1);
  } else {
    ::unsetenv("OMP_NUM_THREADS");
  }
  EXPECT_FALSE(ids[0].empty());
  EXPECT_EQ(ids[0], ids[1]);
}

TEST(IcStreams, ARangeOutsideTheModelIsAnInputError) {
  EXPECT_THROW((void)draw_bodies(request_for("plummer", 10), 5, 11), Error);
  EXPECT_THROW((void)draw_bodies(request_for("plummer", 10), 6, 5), Error);
}

}  // namespace
}  // namespace nbody::test
