// The focused Gaussian laser and oblique incidence ([laser] transverse = "focused", angle_deg),
// measured from the simulated vacuum field against the paraxial beam and plane-wave formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/strings.hpp"
#include "pic/driver/config.hpp"
#include "pic_test_util.hpp"

namespace nbody::pic {
namespace {

constexpr double kLambda = 2 * kPi;

// A vacuum box read from a deck (one tenuous species far from the beam, which the deck asks
// for; the simulation is built without it). Lengths in wavelengths.
PicConfig vacuum_deck(const std::string& grid, const std::string& laser, double rise = 2) {
  const std::string deck = "[grid]\n" + grid +
                           "\nboundary_x = \"open\"\n"
                           "[time]\ncourant = 0.95\nsteps = 1\n"
                           "[laser]\na0 = 0.01\nenvelope = \"flattop\"\nrise = " + std::to_string(rise) + "\nduration = 100\n" +
                           laser +
                           "\n[[species]]\nname = \"electron\"\ndensity = 1e-6\nx_start = 0\nx_end = 0.5\n"
                           "boundary_xmin = \"absorb\"\nboundary_xmax = \"absorb\"\n" +
                           (grid.find("boundary_y = \"open\"") != std::string::npos
                                ? "boundary_ymin = \"absorb\"\nboundary_ymax = \"absorb\"\n"
                                : "");
  return read_pic_config_text(deck, "focused_test.toml", {});
}

// Runs to time t_fill (wavelengths / c), then sums F^2 of component `comp` over `periods` laser
// periods (the time-averaged intensity, up to a constant) at every node.
std::vector<double> mean_square(PicSimulation& sim, int comp, double t_fill, double periods) {
  const double dt = sim.settings().dt;
  sim.run(int(std::ceil(t_fill * kLambda / dt)));
  const Fields& f = sim.fields();
  const int nx = f.geom.nx, ny = f.geom.ny;
  std::vector<double> sum(std::size_t(nx + 1) * std::size_t(ny + 1), 0.0);
  const int steps = int(std::lround(periods * kLambda / dt));
  for (int k = 0; k < steps; ++k) {
    sim.step();
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const double v = f.at(comp, i, j);
        sum[std::size_t(j) * std::size_t(nx + 1) + std::size_t(i)] += v * v;
      }
  }
  return sum;
}

// The least-squares parabola a + b x + c x^2 through (x, v).
void fit_parabola(const std::vector<double>& x, const std::vector<double>& v, double& a, double& b, double& c) {
  double s[5] = {0, 0, 0, 0, 0}, t[3] = {0, 0, 0};
  for (std::size_t k = 0; k < x.size(); ++k) {
    double p = 1;
    for (int e = 0; e < 5; ++e) {
      s[e] += p;
      if (e < 3) t[e] += p * v[k];
      p *= x[k];
    }
  }
  // Cramer's rule on the 3x3 normal equations.
  auto det = [](double m00, double m01, double m02, double m10, double m11, double m12, double m20, double m21,
                double m22) {
    return m00 * (m11 * m22 - m12 * m21) - m01 * (m10 * m22 - m12 * m20) + m02 * (m10 * m21 - m11 * m20);
  };
  const double d = det(s[0], s[1], s[2], s[1], s[2], s[3], s[2], s[3], s[4]);
  a = det(t[0], s[1], s[2], t[1], s[2], s[3], t[2], s[3], s[4]) / d;
  b = det(s[0], t[0], s[2], s[1], t[1], s[3], s[2], t[2], s[4]) / d;
  c = det(s[0], s[1], t[0], s[1], s[2], t[1], s[2], s[3], t[2]) / d;
}

struct BeamFit {
  double worst = 0, focus = 0, waist = 0;
};
BeamFit measure_beam(int cpl, const std::string& solver, double courant, const std::string& polarisation) {
  const double w0 = 1.5, xf = 6.0, dx = 1.0 / cpl;
  const std::string grid = "nx = " + std::to_string(14 * cpl) + "\nny = " + std::to_string(12 * cpl) +
                           "\ndx = " + std::to_string(dx) + "\ndy = " + std::to_string(dx) + "\ny0 = -6\nboundary_y = \"open\"";
  PicConfig c = vacuum_deck(grid, "polarisation = \"" + polarisation + "\"\ntransverse = \"focused\"\nwaist = 1.5\nfocus_x = 6");
  c.solver = solver == "ck" ? SolverKind::ck : SolverKind::yee;
  c.courant = courant;
  PicSimulation sim(pic_settings(c));
  const std::vector<double> i2 = mean_square(sim, polarisation == "linear" ? kEy : kEz, 17, 4);
  const int nx = c.nx, ny = c.ny;
  const double xr = kPi * w0 * w0;  // in wavelengths
  std::vector<double> xs, w2s;
  BeamFit r;
  for (int i = cpl; i <= 12 * cpl; ++i) {
    double s0 = 0, s2 = 0;
    for (int j = 0; j <= ny; ++j) {
      const double y = -6 + j * dx;
      const double v = i2[std::size_t(j) * std::size_t(nx + 1) + std::size_t(i)];
      s0 += v, s2 += v * y * y;
    }
    const double x = i * dx;
    const double w = 2 * std::sqrt(s2 / s0);
    const double expected = w0 * std::sqrt(1 + (x - xf) * (x - xf) / (xr * xr));
    r.worst = std::max(r.worst, std::fabs(w / expected - 1));
    xs.push_back(x);
    w2s.push_back(w * w);
  }
  double a = 0, b = 0, q = 0;
  fit_parabola(xs, w2s, a, b, q);
  r.focus = -b / (2 * q), r.waist = std::sqrt(a - b * b / (4 * q));
  std::printf("focused beam (%d cells a lambda, %s at %.3f, %s): w(x) within %.4f of the paraxial formula; focus at %.4f "
              "lambda (set %.1f), waist %.4f lambda (set %.2f)\n",
              cpl, solver.c_str(), courant, polarisation.c_str(), r.worst, r.focus, xf, r.waist, w0);
  return r;
}

// A beam of waist w0 = 1.5 lambda (x_R = pi w0^2 / lambda = 7.07 lambda) focused at x_f = 6 lambda
// in a 14 x 12 lambda box at 16 cells per lambda (open boundaries). Once the flat top fills the
// box, the 1/e^2 intensity radius of each column, w(x) = 2 sqrt(<y^2>) over the time-averaged
// field squared, is compared with w0 sqrt(1 + (x - x_f)^2 / x_R^2) from 1 to 12 lambda, and the
// parabola through w^2 gives the focus and the waist. CK (exact along x), polarised along z:
// measured 0.9%, focus 0.03 lambda upstream, waist 0.01%; bounds 2%, 0.1 lambda, 1%. Yee polarised
// along y (the in-plane component): its dispersion at 16 cells per lambda moves the focus
// 0.23 lambda upstream (3.8% in w; 0.14 lambda at 32 cells); bounds 5%, 0.3 lambda, 1%.
TEST(FocusedLaser, WaistAndFocalPlaneFollowTheParaxialBeam) {
  const BeamFit ck = measure_beam(16, "ck", 0.99, "linear_z");
  EXPECT_LT(ck.worst, 0.02);
  EXPECT_NEAR(ck.focus, 6.0, 0.1);
  EXPECT_NEAR(ck.waist / 1.5, 1.0, 0.01);
  const BeamFit yee = measure_beam(16, "yee", 0.95, "linear");
  EXPECT_LT(yee.worst, 0.05);
  EXPECT_NEAR(yee.focus, 6.0, 0.3);
  EXPECT_NEAR(yee.waist / 1.5, 1.0, 0.01);
}

// The same beam at 20 degrees (CK, polarised along z): the intensity's centroid crosses each
// column at y = (x - x_f) tan(theta) (the axis through the focus at y_centre = 0) within
// 0.08 lambda from 2 to 12 lambda (measured 0.046: the centroid's slope is 1.6% steeper, the CK
// grid's anisotropy; Yee's is 4% steeper).
TEST(FocusedLaser, ObliqueBeamFollowsItsAxis) {
  const double dx = 1.0 / 16, xf = 6.0, theta = 20 * kPi / 180;
  PicConfig c = vacuum_deck("nx = 224\nny = 256\ndx = 0.0625\ndy = 0.0625\ny0 = -8\nboundary_y = \"open\"",
                                  "polarisation = \"linear_z\"\ntransverse = \"focused\"\nwaist = 1.5\nfocus_x = 6\n"
                                  "angle_deg = 20");
  c.solver = SolverKind::ck;
  c.courant = 0.99;
  PicSimulation sim(pic_settings(c));
  const std::vector<double> i2 = mean_square(sim, kEz, 18, 2);
  double worst = 0;
  for (int i = 32; i <= 12 * 16; ++i) {
    double s0 = 0, s1 = 0;
    for (int j = 0; j <= c.ny; ++j) {
      const double v = i2[std::size_t(j) * std::size_t(c.nx + 1) + std::size_t(i)];
      s0 += v, s1 += v * (-8 + j * dx);
    }
    worst = std::max(worst, std::fabs(s1 / s0 - (i * dx - xf) * std::tan(theta)));
  }
  std::printf("oblique focused beam: centroid within %.4f lambda of the axis\n", worst);
  EXPECT_LT(worst, 0.08);
}

// The amplitude at the laser frequency of component `comp` at node (i, j) over `periods` periods
// from now: 2 |sum F e^{-i t}| / steps (other frequencies, such as the slow start-up transients of
// an oblique injection on a periodic strip, average out).
struct Demodulated {
  std::vector<double> re, im;
  int steps = 0;
  [[nodiscard]] double amplitude(std::size_t k) const { return 2 * std::hypot(re[k], im[k]) / steps; }
};
Demodulated demodulate(PicSimulation& sim, int comp, double periods) {
  const Fields& f = sim.fields();
  const int nx = f.geom.nx, ny = f.geom.ny;
  Demodulated d;
  d.re.assign(std::size_t(nx + 1) * std::size_t(ny + 1), 0.0);
  d.im = d.re;
  d.steps = int(std::lround(periods * kLambda / sim.settings().dt));
  for (int k = 0; k < d.steps; ++k) {
    sim.step();
    const double t = sim.time();
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const std::size_t n = std::size_t(j) * std::size_t(nx + 1) + std::size_t(i);
        d.re[n] += f.at(comp, i, j) * std::cos(t), d.im[n] += f.at(comp, i, j) * std::sin(t);
      }
  }
  return d;
}

// A plane wave at 30 degrees polarised along z, on a strip periodic in y of 4 lambda (2
// wavelengths along y fit), a PML at the right end, Yee at 16 cells per lambda: over periods 24 to 28,
// between 1 and 3 lambda from the boundary, the amplitude of Ez at the laser frequency is a0
// within 1.5% (the start-up of an oblique injection on a periodic strip leaves a slowly decaying
// transient: 2.7% over periods 12 to 16; measured 1.0%), and its phase along the middle row advances
// by k_x = cos(theta) within 1% (measured 0.16%).
TEST(FocusedLaser, ObliquePlaneWaveHasItsAmplitudeAndDirection) {
  const double theta = 30 * kPi / 180, dx = 1.0 / 16;
  PicConfig c = vacuum_deck("nx = 128\nny = 64\ndx = 0.0625\ndy = 0.0625", "angle_deg = 30\npolarisation = \"linear_z\"");
  c.pml_x = true;
  PicSimulation sim(pic_settings(c));
  sim.run(int(std::ceil(24 * kLambda / sim.settings().dt)));
  const Demodulated ez = demodulate(sim, kEz, 4);
  const std::size_t row = std::size_t(c.nx + 1);
  double worst = 0;
  for (int j = 0; j < c.ny; ++j)
    for (int i = 16; i < 3 * 16; ++i) worst = std::max(worst, std::fabs(ez.amplitude(std::size_t(j) * row + std::size_t(i)) / 0.01 - 1));
  // The phase along the middle row: a straight line of slope k_x (omega0 / c units).
  std::vector<double> xs, phase;
  double unwrap = 0, last = 0;
  for (int i = 16; i < 5 * 16; ++i) {
    const std::size_t n = std::size_t(c.ny / 2) * row + std::size_t(i);
    double p = std::atan2(ez.im[n], ez.re[n]);
    if (!xs.empty()) {
      while (p + unwrap - last > kPi) unwrap -= 2 * kPi;
      while (p + unwrap - last < -kPi) unwrap += 2 * kPi;
    }
    last = p + unwrap;
    xs.push_back(i * dx * kLambda);
    phase.push_back(last);
  }
  double a = 0, b = 0, q = 0;
  fit_parabola(xs, phase, a, b, q);
  const double kx = std::fabs(b + 2 * q * xs[xs.size() / 2]);
  std::printf("oblique plane wave: Ez amplitude within %.4f of a0; k_x %.5f (cos theta %.5f)\n", worst, kx, std::cos(theta));
  EXPECT_LT(worst, 0.015);
  EXPECT_NEAR(kx / std::cos(theta), 1.0, 0.01);
}

// Bad focused and oblique lasers: one line naming the key and the value.
TEST(FocusedLaser, BadValuesNameTheirKey) {
  const std::string grid = "nx = 64\nny = 64\ndx = 0.0625\ndy = 0.0625\nboundary_y = \"open\"";
  auto message = [&](const std::string& laser, const std::string& g = "") {
    try {
      (void)vacuum_deck(g.empty() ? grid : g, laser);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("transverse = \"focused\"\nwaist = 1").find("laser.focus_x: is needed"), std::string::npos);
  EXPECT_NE(message("transverse = \"focused\"\nwaist = 0.2\nfocus_x = 1").find("laser.waist: 0.2 must be"), std::string::npos);
  EXPECT_NE(message("focus_x = 1").find("laser.focus_x: is read only with"), std::string::npos);
  EXPECT_NE(message("angle_deg = 75").find("laser.angle_deg: 75 must be within (-60, 60)"), std::string::npos);
  EXPECT_NE(message("transverse = \"ring\"").find("laser.transverse: 'ring' is not one of plane, gaussian, focused"),
            std::string::npos);
  const std::string periodic = "nx = 64\nny = 64\ndx = 0.0625\ndy = 0.0625";  // 4 lambda, periodic
  EXPECT_NE(message("angle_deg = 20", periodic).find("laser.angle_deg: 20 with a plane wave on a periodic y axis"),
            std::string::npos);
  EXPECT_EQ(message("angle_deg = 30", periodic), "no error");
  // (in-plane polarisation with CK: refused until the CK edge fix, accepted since)
  EXPECT_EQ(message("transverse = \"focused\"\nwaist = 1\nfocus_x = 1\n[solver]\nfield = \"ck\""), "no error");
  EXPECT_EQ(message("polarisation = \"linear_z\"\ntransverse = \"focused\"\nwaist = 1\nfocus_x = 1\n[solver]\nfield = \"ck\""),
            "no error");
  EXPECT_NE(message("angle_deg = 75").find("'focused_test.toml'"), std::string::npos) << "the deck is named";
}

}  // namespace
}  // namespace nbody::pic
