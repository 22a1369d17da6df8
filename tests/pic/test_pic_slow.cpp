// Long PIC runs (label slow): the reduced hole-boring example's front velocity against Robinson
// et al. (2009), v_hb/c = sqrt(Pi)/(1 + sqrt(Pi)), within 10% (about a minute on one core).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pic/driver/config.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {
namespace {

TEST(HoleBoring, ReducedFrontVelocityMatchesRobinson) {
  const PicConfig c = read_pic_config(std::string(NBODY_EXAMPLES) + "/pic/hole_boring_reduced.toml", {"output.dir=\"\"", "output.fields_every=0"});
  PicSimulation sim = build_pic_simulation(c);
  const double a0 = c.laser.a0;
  double rho = 0;
  for (const Species& s : sim.species())
    if (s.mass > 1.5) rho += s.mass * c.species[&s - sim.species().data()].profile.n0;
  const double pi_hb = a0 * a0 / rho;  // circular: I = a0^2 n_c m_e c^3
  const double v_theory = std::sqrt(pi_hb) / (1 + std::sqrt(pi_hb));
  const GridGeometry& g = sim.settings().geom;
  std::vector<double> t, front;
  const std::int64_t steps = pic_steps(c);
  for (std::int64_t n = 1; n <= steps; ++n) {
    sim.step();
    if (n % 50) continue;
    const double periods = sim.time() / (2 * kPi);
    if (periods < 5) continue;
    // The piston: the peak of the electron density along x.
    std::vector<double> h(std::size_t(g.nx), 0.0);
    const Species& e = sim.species()[0];
    for (std::size_t p = 0; p < e.size(); ++p) {
      const int i = int((e.x[p] - g.x0) / g.dx);
      if (i >= 0 && i < g.nx) h[std::size_t(i)] += e.w[p];
    }
    std::size_t best = 0;
    for (std::size_t i = 1; i < h.size(); ++i)
      if (h[i] > h[best]) best = i;
    t.push_back(sim.time());
    front.push_back(g.x0 + (double(best) + 0.5) * g.dx);
  }
  double n = double(t.size()), st = 0, sx = 0, stt = 0, stx = 0;
  for (std::size_t k = 0; k < t.size(); ++k) st += t[k], sx += front[k], stt += t[k] * t[k], stx += t[k] * front[k];
  const double v = (n * stx - st * sx) / (n * stt - st * st);
  std::printf("hole boring: v_hb measured %.4f c, Robinson %.4f c (ratio %.3f)\n", v, v_theory, v / v_theory);
  EXPECT_NEAR(v / v_theory, 1.0, 0.10);
}

}  // namespace
}  // namespace nbody::pic
