// Hernquist (1990, ApJ 356, 359) sphere, isotropic, in Henon units.
//
// Recipe (units G = a = 1 until the last step).
// 1. Truncation: bodies are drawn from the inner kHernquistMassCut = 99 % of the model's mass,
//    r < 199 a. The model has mass 1 / 0.99, so the bodies' total mass is 1 and, inside the cut,
//    the forces (from M(r) only) are the untruncated model's: the sample is in equilibrium
//    except for the orbits that would leave the cut.
// 2. Radii from the analytic inverse of the cumulative mass: u uniform in (0, 0.99),
//    r = a sqrt(u) / (1 - sqrt(u)).
// 3. Speeds from the analytic isotropic DF f(E) (Hernquist 1990 eq. 17) by rejection: at radius
//    r, Psi = 1 / (1 + r) (unit-mass model), a proposal uniform in the velocity ball of radius
//    sqrt(2 Psi) (density ~ v^2) is accepted with probability f(Psi - v^2/2) / f(Psi) (f grows
//    with the binding energy, so the ratio is <= 1); then the speed is multiplied by
//    sqrt(1 / 0.99) for the model's mass. Isotropic directions.
// 4. Henon units from the energies of the truncated, sampled distribution (no O(N^2) sum):
//    W = -int_0^R G M_s(r) / r dM_s with M_s = M(r) / 0.99, in closed form, and
//    K = 3/2 int_0^R rho sigma^2 dV = 2 pi R^3 P(R) + I(R) / 2 (integration by parts of the
//    isotropic Jeans equation, P = rho sigma^2, I = int_0^R M / r dM), with P(R) by quadrature.
//    The sample's virial ratio 2K/|W| = 1 + 4 pi R^3 P(R) / I(R) = 1.00006. Then masses 1/N,
//    lengths and velocities scaled to E = -1/4 (a = 0.340 in Henon units), centred.
//
// n is the number of bodies (any n >= 1), all of mass 1/n.
#include "ic/hernquist.hpp"

#include <cmath>
#include <numbers>

#include "core/rng.hpp"
#include "ic/ic.hpp"
#include "ic/model_tools.hpp"

namespace nbody::ic {

double hernquist_radius(double u) {
  const double s = std::sqrt(u);
  return s / (1.0 - s);
}

double hernquist_df(double e) {
  const double q2 = e;
  const double q = std::sqrt(e);
  const double c = 1.0 - q2;
  return (3.0 * std::asin(q) + q * std::sqrt(c) * (1.0 - 2.0 * q2) * (8.0 * q2 * q2 - 8.0 * q2 - 3.0)) /
         std::pow(c, 2.5);
}

HernquistModel hernquist_model() {
  HernquistModel h;
  const double f = kHernquistMassCut;
  const double big_r = hernquist_radius(f);
  const double s = 1.0 + big_r;
  // I(R) = int_0^R M / r dM for the unit-mass model: int 2 r^2 / (1 + r)^5 dr.
  const double i_r = 1.0 / 6.0 - 1.0 / (s * s) + 4.0 / (3.0 * s * s * s) - 1.0 / (2.0 * s * s * s * s);
  // P(R) = int_R^inf rho M / r^2 dr = (1 / 2 pi) int_R^inf dr / (r (1 + r)^5), in x = ln r.
  const double p_r = simpson([](double x) { return std::pow(1.0 + std::exp(x), -5.0); }, std::log(big_r),
                             std::log(big_r) + 40.0, 4000) /
                     (2.0 * std::numbers::pi);
  const double mass = 1.0 / f;  // the model's mass; energies scale with mass^2 at fixed G, a
  h.cut_radius = big_r;
  h.potential = -mass * mass * i_r;
  h.kinetic = mass * mass * (2.0 * std::numbers::pi * big_r * big_r * big_r * p_r + 0.5 * i_r);
  h.henon = henon_scale(1.0, h.kinetic + h.potential, "hernquist");
  return h;
}

}  // namespace nbody::ic

namespace nbody {

void draw_hernquist(const IcRequest& req, Particles<double>& p, std::size_t begin, std::size_t end) {
  const auto n = static_cast<std::size_t>(req.n);
  const double speed_scale = std::sqrt(1.0 / ic::kHernquistMassCut);
  ic::for_each_body(req.seed, ic::kStreamBody, begin, end, [&](std::size_t k, std::size_t i, BodyRng& rng) {
    const double r = ic::hernquist_radius(ic::kHernquistMassCut * rng.uniform_open());
    const double psi = 1.0 / (1.0 + r);
    const double v_escape = std::sqrt(2.0 * psi);
    const double f_max = ic::hernquist_df(psi);
    double v = 0;
    for (;;) {
      v = v_escape * std::cbrt(rng.uniform());
      if (rng.uniform() * f_max < ic::hernquist_df(psi - 0.5 * v * v)) break;
    }
    v *= speed_scale;
    ic::place_isotropic(p, k, r, v, 1.0 / double(n), rng);
    p.id[k] = i;
  });
}

Particles<double> make_hernquist(const IcRequest& req) {
  const ic::HernquistModel model = ic::hernquist_model();
  Particles<double> p;
  p.resize(static_cast<std::size_t>(req.n));
  draw_hernquist(req, p, 0, p.size());
  ic::apply(p, model.henon);
  centre(p);
  return p;
}

}  // namespace nbody
