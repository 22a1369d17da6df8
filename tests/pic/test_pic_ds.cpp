// The directional-splitting solver of document 004 (vacuum study, docs/pic.md): the code against
// its derived amplification matrix, its stability at c dt = dx on dy = 2 dx, exact propagation
// along x, and the finding that it does not keep Gauss's law in 2D.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <random>

#include "pic/cpu/directional_splitting.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {
namespace {

constexpr int kNx = 32, kNy = 16;
constexpr double kDx = 0.1, kDy = 0.2;  // the document's aspect ratio dy = 2 dx

// One step applied to each component's cos mode, projected on exp(-i k.x), equals half the
// column of the derived amplification matrix.
TEST(DirectionalSplitting, CodeMatchesDerivedAmplificationMatrix) {
  for (auto [mx, my] : {std::pair{1, 0}, {3, 2}, {5, 7}, {0, 4}}) {
    const double kx = 2 * kPi * mx / (kNx * kDx), ky = 2 * kPi * my / (kNy * kDy);
    const auto m = DirectionalSplitting::amplification(kDx, kDy, kx, ky);
    for (int c = 0; c < 6; ++c) {
      DirectionalSplitting ds(kNx, kNy, kDx, kDy);
      for (int j = 0; j < kNy; ++j)
        for (int i = 0; i < kNx; ++i) ds.at(c, i, j) = std::cos(kx * i * kDx + ky * j * kDy);
      ds.step();
      for (int r = 0; r < 6; ++r) {
        std::complex<double> p = 0;
        for (int j = 0; j < kNy; ++j)
          for (int i = 0; i < kNx; ++i)
            p += ds.at(r, i, j) * std::exp(std::complex<double>(0, -(kx * i * kDx + ky * j * kDy)));
        p /= double(kNx * kNy);
        EXPECT_LT(std::abs(p - 0.5 * m[std::size_t(r) * 6 + std::size_t(c)]), 1e-13)
            << "mode " << mx << "," << my << " row " << r << " column " << c;
      }
    }
  }
}

// Von Neumann: every mode's eigenvalues lie in the unit disc (each split step is a contraction
// in the field energy), and white noise loses energy, never gains it.
TEST(DirectionalSplitting, StableAtCdtEqualDx) {
  double worst = 0;
  for (int my = 0; my < kNy; ++my)
    for (int mx = 0; mx < kNx; ++mx) {
      if (mx == 0 && my == 0) continue;  // the identity (a triple root)
      for (auto z : DirectionalSplitting::eigenvalues(kDx, kDy, 2 * kPi * mx / (kNx * kDx), 2 * kPi * my / (kNy * kDy)))
        worst = std::max(worst, std::abs(z));
    }
  EXPECT_LE(worst, 1.0 + 1e-8) << worst - 1;  // the cubic's double roots are found to ~1e-8
  DirectionalSplitting ds(kNx, kNy, kDx, kDy);
  std::mt19937_64 gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int c = 0; c < 6; ++c)
    for (int j = 0; j < kNy; ++j)
      for (int i = 0; i < kNx; ++i) ds.at(c, i, j) = u(gen);
  double e = ds.energy();
  for (int n = 0; n < 2000; ++n) {
    ds.step();
    const double e1 = ds.energy();
    ASSERT_LE(e1, e * (1 + 1e-13)) << "step " << n;
    e = e1;
  }
}

// Along x the characteristics move exactly one cell per step: a y-uniform pulse is translated
// without change, and the eigenvalues are exp(-+i kx dx) (phase velocity c at every kx).
TEST(DirectionalSplitting, ExactAlongX) {
  DirectionalSplitting ds(kNx, kNy, kDx, kDy);
  auto pulse = [](int i) { return std::exp(-0.1 * (i - 10) * (i - 10)) * std::sin(0.9 * i); };
  for (int j = 0; j < kNy; ++j)
    for (int i = 0; i < kNx; ++i) ds.at(DirectionalSplitting::Ey, i, j) = ds.at(DirectionalSplitting::Bz, i, j) = pulse(i);
  for (int n = 0; n < 7; ++n) ds.step();
  for (int i = 0; i < kNx; ++i) EXPECT_NEAR(ds.at(DirectionalSplitting::Ey, (i + 7) % kNx, 3), pulse(i), 1e-15);
  for (int mx = 1; mx < kNx / 2; ++mx) {
    const double kx = 2 * kPi * mx / (kNx * kDx);
    bool found = false;
    for (auto z : DirectionalSplitting::eigenvalues(kDx, kDy, kx, 0.0))
      if (std::abs(z - std::exp(std::complex<double>(0, -kx * kDx))) < 1e-10) found = true;
    EXPECT_TRUE(found) << "mode " << mx;
  }
}

// The finding: a divergence-free wave with ky != 0 does not stay divergence free. The x step
// changes Ey (hence dEy/dy) and the y step changes Ex, and the two changes do not cancel,
// because the exact shift along x and the interpolation along y are not the same difference
// operator as the divergence's. Charge-conserving deposition cannot repair that.
TEST(DirectionalSplitting, DoesNotKeepGaussLawIn2D) {
  DirectionalSplitting ds(kNx, kNy, kDx, kDy);
  const double kx = 2 * kPi * 3 / (kNx * kDx), ky = 2 * kPi * 2 / (kNy * kDy);
  // Divergence free for the centred node difference: E = (-s_y, s_x, 0) cos(k.x + ...) with
  // s = sin(k d) / d; use sin phases so that the centred difference acts exactly.
  const double sx = std::sin(kx * kDx) / kDx, sy = std::sin(ky * kDy) / kDy;
  for (int j = 0; j < kNy; ++j)
    for (int i = 0; i < kNx; ++i) {
      const double ph = std::cos(kx * i * kDx + ky * j * kDy);
      ds.at(DirectionalSplitting::Ex, i, j) = -sy * ph;
      ds.at(DirectionalSplitting::Ey, i, j) = sx * ph;
      ds.at(DirectionalSplitting::Bz, i, j) = std::hypot(sx, sy) * ph;
    }
  const double scale = std::hypot(sx, sy) * std::hypot(sx, sy);
  EXPECT_LT(ds.divergence_max() / scale, 1e-14);
  for (int n = 0; n < 100; ++n) ds.step();
  const double rel = ds.divergence_max() / scale;
  std::printf("directional splitting: max|div E| / (|k| |E|) after 100 steps = %.3g\n", rel);
  EXPECT_GT(rel, 1e-3);
}

// The numerical dispersion, for docs/pic.md: phase velocity and amplitude per step of the
// propagating modes at a few wavelengths and angles (printed; checked to be sane).
TEST(DirectionalSplitting, DispersionTable) {
  for (double ppw : {8.0, 16.0, 32.0, 100.0})  // cells of dy per wavelength
    for (double angle : {0.0, 30.0, 60.0, 90.0}) {
      const double k = 2 * kPi / (ppw * kDy), a = angle * kPi / 180;
      const double kx = k * std::cos(a), ky = k * std::sin(a);
      double best_v = 0, best_g = 0;
      for (auto z : DirectionalSplitting::eigenvalues(kDx, kDy, kx, ky)) {
        const double v = std::fabs(std::arg(z)) / (k * kDx);
        if (std::fabs(v - 1) < std::fabs(best_v - 1)) best_v = v, best_g = std::abs(z);
      }
      std::printf("DS dispersion: dy/lambda = 1/%g angle %2g deg: v_phase/c = %.5f, |amplification| = %.6f\n", ppw,
                  angle, best_v, best_g);
      EXPECT_NEAR(best_v, 1.0, 0.1);
      EXPECT_LE(best_g, 1.0 + 1e-8);
    }
}

}  // namespace
}  // namespace nbody::pic
