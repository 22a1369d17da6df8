// Disk galaxy: exponential disk + Hernquist bulge + Hernquist dark halo in approximate
// equilibrium, after the moment method of Hernquist (1993, ApJS 86, 389), simplified.
//
// Model (units G = 1, total mass M = 1, disk scale length R_d = 1; constants in galaxy.hpp):
//   disk   M_d = --disk-fraction (0.15): Sigma(R) = Sigma0 exp(-R / R_d) out to 10 R_d, vertical
//          profile sech^2(z / z0), z0 = 0.2 R_d;
//   bulge  M_b = --bulge-fraction (0.05): Hernquist, a_b = 0.2 R_d, inner 99 % of its mass;
//   halo   M_h = 1 - M_d - M_b: Hernquist, a_h = 3 R_d, inner 90 % of its mass (r < 55.5 R_d).
//   All bodies have the same mass, so the component counts follow the mass fractions.
//
// Velocities.
//   Bulge and halo: isotropic Gaussian velocities with the dispersion of the isotropic Jeans
//     equation in the total potential, sigma^2(r) = (1 / rho_c) int_r^{r_cut} rho_c G M(r') / r'^2 dr',
//     where M(r) counts the bulge, the halo and the disk's mass inside cylindrical radius r (the
//     disk taken as spherical for this purpose); speeds above 0.95 of the local escape speed are
//     drawn again. Tabulated on 4000 radii in ln r.
//   Disk: rotation from the total enclosed mass, v_c^2 = v_disk^2 + G (M_b(R) + M_h(R)) / R, with
//     v_disk the exact thin exponential disk (Freeman 1970: 4 pi G Sigma0 R_d y^2 [I0 K0 - I1 K1],
//     y = R / 2 R_d); epicyclic frequency kappa^2 = 2 v_c^2 / R^2 + d(v_c^2)/dR / R (numerical
//     derivative); dispersions
//       sigma_z^2   = pi G Sigma(R) z0             (isothermal sheet),
//       sigma_R     ~ exp(-R / 2 R_d), set to Toomre Q (--toomre-q, 1.5) at R = 2.43 R_d:
//                     sigma_R = Q 3.36 G Sigma / kappa there,
//       sigma_phi^2 = sigma_R^2 kappa^2 / (4 Omega^2)  (epicyclic approximation);
//     mean rotation from the asymmetric drift (Jeans equation in the plane, with
//     d ln(Sigma sigma_R^2) / d ln R = -2 R / R_d):
//       vbar_phi^2  = v_c^2 + sigma_R^2 (1 - kappa^2 / (4 Omega^2) - 2 R / R_d), 0 where negative;
//     v_R, v_phi - vbar_phi, v_z Gaussian.
// Henon units: the galaxy is centred, then its energy E = K + W is taken from the bodies
// themselves, K exactly and W as the unsoftened pair sum over at most 16384 of them (all of them
// when n <= 16384, so E = -1/4 to rounding; for larger n a stratified subset, every k-th body,
// which estimates W to 1-2 %: the per-body potentials scatter widely, the bulge's being deep),
// and lengths and velocities are scaled to E = -1/4. The model's energy has no closed form (the disk is not spherical), hence the sum:
// O(min(n, 16384)^2), under a second. In Henon units R_d comes out near 0.19.
// The model is approximate: its virial ratio 2K/|W| is about 1 but not exactly (measured in the
// tests), and the disk relaxes a little in the first rotation periods.
//
// n is the number of bodies of the galaxy, mass 1/n each; each component with a positive mass
// fraction needs at least one body (n >= 10 with the default fractions), fewer is an input error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "ic/galaxy.hpp"
#include "ic/hernquist.hpp"
#include "ic/ic.hpp"
#include "ic/model_tools.hpp"
#include "ic/setup_log.hpp"
#include "nbody/error.hpp"

namespace nbody::ic {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr int kGridPoints = 4000;
constexpr double kGridInner = 1e-4;  // innermost tabulated radius, in R_d

// A truncated Hernquist component: the inner `cut` of a model of mass `mass / cut`.
struct HernquistPart {
  double mass = 0;  // mass inside the cut (what the bodies carry)
  double a = 1;
  double cut = 1;
  double r_cut = 0;

  HernquistPart(double m, double scale, double mass_cut)
      : mass(m), a(scale), cut(mass_cut), r_cut(scale * hernquist_radius(mass_cut)) {}
  [[nodiscard]] double enclosed(double r) const {
    if (r >= r_cut) return mass;
    return mass / cut * r * r / ((r + a) * (r + a));
  }
  [[nodiscard]] double density(double r) const {
    if (r >= r_cut || mass <= 0) return 0;
    return mass / cut * a / (2.0 * kPi * r * std::pow(r + a, 3));
  }
};

struct DiskPart {
  double mass = 0;
  double sigma0 = 0;  // central surface density of the truncated disk
  double norm = 1;    // fraction of an untruncated exponential disk's mass inside kDiskCut

  explicit DiskPart(double m) : mass(m) {
    norm = 1.0 - (1.0 + kDiskCut) * std::exp(-kDiskCut);
    sigma0 = m / (2.0 * kPi * norm);
  }
  [[nodiscard]] double surface_density(double r) const { return r > kDiskCut ? 0.0 : sigma0 * std::exp(-r); }
  // Mass inside cylindrical radius r; used as if spherical for the bulge's and halo's dispersions.
  [[nodiscard]] double enclosed(double r) const {
    if (r >= kDiskCut) return mass;
    return mass * (1.0 - (1.0 + r) * std::exp(-r)) / norm;
  }
  // Circular speed squared of the razor-thin exponential disk (Freeman 1970).
  [[nodiscard]] double v2(double r) const {
    if (r <= 0) return 0;
    const double y = 0.5 * r;
    const double b = std::cyl_bessel_i(0.0, y) * std::cyl_bessel_k(0.0, y) -
                     std::cyl_bessel_i(1.0, y) * std::cyl_bessel_k(1.0, y);
    return 4.0 * kPi * sigma0 * y * y * b;
  }
  // Radius enclosing the fraction u of the (truncated) disk's mass, by bisection.
  [[nodiscard]] double radius_of_fraction(double u) const {
    const double target = u * norm;
    double lo = 0, hi = kDiskCut;
    for (int it = 0; it < 80; ++it) {
      const double mid = 0.5 * (lo + hi);
      // Once the halving moves neither end (the ends adjacent doubles) no later one would.
      if (mid == lo || mid == hi) break;
      ((1.0 - (1.0 + mid) * std::exp(-mid)) < target ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
  }
};

class GalaxyModel {
 public:
  GalaxyModel(double m_disk, double m_bulge, double m_halo)
      : disk_(m_disk), bulge_(m_bulge, kBulgeScale, kBulgeMassCut), halo_(m_halo, kHaloScale, kHaloMassCut) {
    const double r_max = std::max({bulge_.r_cut, halo_.r_cut, kDiskCut});
    x0_ = std::log(kGridInner);
    dx_ = (std::log(r_max) - x0_) / (kGridPoints - 1);
    tabulate();
  }

  [[nodiscard]] double enclosed(double r) const { return disk_.enclosed(r) + bulge_.enclosed(r) + halo_.enclosed(r); }
  [[nodiscard]] double spherical_v2(double r) const { return r > 0 ? (bulge_.enclosed(r) + halo_.enclosed(r)) / r : 0; }
  [[nodiscard]] double circular_v2(double r) const { return disk_.v2(r) + spherical_v2(r); }
  [[nodiscard]] double kappa2(double r) const { return kappa2(r, circular_v2(r)); }
  // The same with circular_v2(r) given (vc2): each of its Bessel functions costs about a microsecond.
  [[nodiscard]] double kappa2(double r, double vc2) const {
    const double h = 1e-4 * std::max(r, 1e-2);
    const double dv2 = (circular_v2(r + h) - circular_v2(std::max(r - h, 0.0))) / (r + h - std::max(r - h, 0.0));
    return 2.0 * vc2 / (r * r) + dv2 / r;
  }
  [[nodiscard]] const DiskPart& disk() const { return disk_; }
  [[nodiscard]] const HernquistPart& bulge() const { return bulge_; }
  [[nodiscard]] const HernquistPart& halo() const { return halo_; }

  // Jeans dispersion of the bulge (component 0) or halo (1), and the escape speed, at r.
  [[nodiscard]] double sigma2(int component, double r) const { return lookup(sigma2_[component], r); }
  [[nodiscard]] double escape_speed(double r) const { return std::sqrt(2.0 * lookup(psi_, r)); }

 private:
  void tabulate() {
    std::vector<double> r(kGridPoints);
    for (int i = 0; i < kGridPoints; ++i) r[i] = std::exp(x0_ + i * dx_);
    // Psi(r) = G M(r_max) / r_max + int_r^{r_max} G M / r'^2 dr', trapezoid in ln r.
    psi_.assign(kGridPoints, 0.0);
    psi_.back() = enclosed(r.back()) / r.back();
    for (int i = kGridPoints - 2; i >= 0; --i) {
      const double a = enclosed(r[i]) / r[i], b = enclosed(r[i + 1]) / r[i + 1];
      psi_[i] = psi_[i + 1] + 0.5 * dx_ * (a + b);
    }
    const HernquistPart* parts[2] = {&bulge_, &halo_};
    for (int c = 0; c < 2; ++c) {
      std::vector<double>& s2 = sigma2_[c];
      s2.assign(kGridPoints, 0.0);
      double integral = 0;  // int_r^{r_max} rho_c G M / r^2 dr (rho_c = 0 beyond its cut)
      auto integrand = [&](int i) { return parts[c]->density(r[i]) * enclosed(r[i]) / r[i]; };  // * r for ln r
      for (int i = kGridPoints - 2; i >= 0; --i) {
        integral += 0.5 * dx_ * (integrand(i) + integrand(i + 1));
        const double rho = parts[c]->density(r[i]);
        s2[i] = rho > 0 ? integral / rho : 0.0;
      }
    }
  }

  [[nodiscard]] double lookup(const std::vector<double>& table, double r) const {
    const double t = (std::log(std::max(r, kGridInner)) - x0_) / dx_;
    if (t >= kGridPoints - 1) return table.back();
    const auto i = static_cast<std::size_t>(t);
    const double f = t - double(i);
    return table[i] + f * (table[i + 1] - table[i]);
  }

  DiskPart disk_;
  HernquistPart bulge_, halo_;
  double x0_ = 0, dx_ = 0;
  std::vector<double> psi_;
  std::vector<double> sigma2_[2];
};

// Draws the galaxy's bodies of local index j in [lo, hi) (all of one component), body j from the
// stream (seed, component, first + j), into out at out_offset + j - begin.
struct DrawTarget {
  Particles<double>& out;
  std::uint64_t seed;
  std::size_t first;       // global index of the galaxy's body 0
  std::size_t begin;       // local index drawn to out_offset
  std::size_t out_offset;
  std::uint8_t component_base;  // the disk's component tag; the bulge's is one more, the halo's two
};

void sample_disk(const DrawTarget& t, std::size_t lo, std::size_t hi, const GalaxyModel& model, double toomre_q) {
  const DiskPart& disk = model.disk();
  const double kappa_ref = std::sqrt(model.kappa2(kToomreRadius));
  const double sigma_r_ref = toomre_q * 3.36 * disk.surface_density(kToomreRadius) / kappa_ref;
  Particles<double>& p = t.out;
  for_each_body(t.seed, kStreamDisk, t.first + lo, t.first + hi, [&](std::size_t k, std::size_t id, BodyRng& rng) {
    const std::size_t o = t.out_offset + (lo - t.begin) + k;
    const double r = disk.radius_of_fraction(rng.uniform_open());
    const double phi = 2.0 * std::numbers::pi * rng.uniform();
    const double z = kDiskScaleHeight * std::atanh(2.0 * rng.uniform_open() - 1.0);
    const double vc2 = model.circular_v2(r);
    const double omega2 = vc2 / (r * r);
    const double kappa2 = model.kappa2(r, vc2);
    const double sigma_r = sigma_r_ref * std::exp(-(r - kToomreRadius) / 2.0);
    const double ratio = omega2 > 0 ? kappa2 / (4.0 * omega2) : 1.0;
    const double sigma_phi = sigma_r * std::sqrt(std::max(ratio, 0.0));
    const double sigma_z = std::sqrt(std::numbers::pi * disk.surface_density(r) * kDiskScaleHeight);
    const double mean2 = vc2 + sigma_r * sigma_r * (1.0 - ratio - 2.0 * r);
    const double v_phi = std::sqrt(std::max(mean2, 0.0)) + sigma_phi * rng.normal();
    const double v_r = sigma_r * rng.normal();
    const double v_z = sigma_z * rng.normal();
    const double c = std::cos(phi), s = std::sin(phi);
    p.x[o] = r * c;
    p.y[o] = r * s;
    p.z[o] = z;
    p.vx[o] = v_r * c - v_phi * s;
    p.vy[o] = v_r * s + v_phi * c;
    p.vz[o] = v_z;
    p.id[o] = id;
    p.component[o] = static_cast<std::uint8_t>(t.component_base + kComponentDisk);
  });
}

void sample_spheroid(const DrawTarget& t, std::size_t lo, std::size_t hi, const GalaxyModel& model, int component) {
  const HernquistPart& part = component == 0 ? model.bulge() : model.halo();
  Particles<double>& p = t.out;
  const std::uint32_t stream = component == 0 ? kStreamBulge : kStreamHalo;
  for_each_body(t.seed, stream, t.first + lo, t.first + hi, [&](std::size_t k, std::size_t id, BodyRng& rng) {
    const std::size_t o = t.out_offset + (lo - t.begin) + k;
    const double r = part.a * hernquist_radius(part.cut * rng.uniform_open());
    double ux, uy, uz;
    rng.unit_vector(ux, uy, uz);
    const double sigma = std::sqrt(model.sigma2(component, r));
    const double v_max = 0.95 * model.escape_speed(r);
    double vx, vy, vz;
    do {
      vx = sigma * rng.normal();
      vy = sigma * rng.normal();
      vz = sigma * rng.normal();
    } while (vx * vx + vy * vy + vz * vz > v_max * v_max);
    p.x[o] = r * ux;
    p.y[o] = r * uy;
    p.z[o] = r * uz;
    p.vx[o] = vx;
    p.vy[o] = vy;
    p.vz[o] = vz;
    p.id[o] = id;
    p.component[o] = static_cast<std::uint8_t>(t.component_base + (component == 0 ? kComponentBulge : kComponentHalo));
  });
}

struct GalaxyCounts {
  std::size_t disk = 0, bulge = 0, halo = 0;
};

GalaxyCounts galaxy_counts(std::size_t n, const GalaxyParams& params, std::string_view ic_name) {
  GalaxyCounts c;
  c.disk = static_cast<std::size_t>(std::llround(params.disk_fraction * double(n)));
  c.bulge = static_cast<std::size_t>(std::llround(params.bulge_fraction * double(n)));
  if (c.disk + c.bulge > n) c.bulge = n - c.disk;
  c.halo = n - c.disk - c.bulge;
  if (c.disk == 0 || c.halo == 0 || (params.bulge_fraction > 0 && c.bulge == 0)) {
    throw_input_error("n: " + std::string(ic_name) + " with these mass fractions needs more bodies per galaxy (got " +
                      std::to_string(n) + "; each component needs at least one)");
  }
  return c;
}

GalaxyModel galaxy_model(std::size_t n, const GalaxyCounts& c) {
  const double m = 1.0 / double(n);
  return GalaxyModel(double(c.disk) * m, double(c.bulge) * m, double(c.halo) * m);
}

// The galaxy's bodies of local index [begin, end), as drawn (model units, before centring and
// scaling), into out from out_offset on; masses 1/n, ids first + j.
void draw_galaxy_range(std::size_t n, const GalaxyCounts& c, const GalaxyModel& model, const GalaxyParams& params,
                       std::uint64_t seed, std::size_t first, Particles<double>& out, std::size_t begin,
                       std::size_t end, std::size_t out_offset, std::uint8_t component_base) {
  const DrawTarget t{out, seed, first, begin, out_offset, component_base};
  const std::size_t bounds[4] = {0, c.disk, c.disk + c.bulge, n};
  for (int part = 0; part < 3; ++part) {
    const std::size_t lo = std::max(begin, bounds[part]), hi = std::min(end, bounds[part + 1]);
    if (lo >= hi) continue;
    if (part == 0) {
      sample_disk(t, lo, hi, model, params.toomre_q);
    } else {
      sample_spheroid(t, lo, hi, model, part - 1);
    }
  }
  for (std::size_t j = begin; j < end; ++j) out.m[out_offset + j - begin] = 1.0 / double(n);
}

}  // namespace

GalaxyParams galaxy_params(const RunConfig& cfg) {
  GalaxyParams g{cfg.disk_fraction, cfg.bulge_fraction, cfg.toomre_q};
  if (!(g.disk_fraction + g.bulge_fraction < 1.0)) {
    throw_input_error("disk_fraction, bulge_fraction: their sum must be below 1 to leave a halo (got " +
                      std::to_string(g.disk_fraction) + " + " + std::to_string(g.bulge_fraction) + ")");
  }
  return g;
}

Galaxy make_galaxy(std::size_t n, std::uint64_t seed, std::size_t first_index, const GalaxyParams& params,
                   std::string_view ic_name, Logger* log, std::string_view label) {
  const GalaxyCounts c = galaxy_counts(n, params, ic_name);
  Galaxy g;
  g.n_disk = c.disk;
  g.n_bulge = c.bulge;
  g.n_halo = c.halo;
  const std::string name(label);
  double energy = 0;
  {
    const SetupPhase phase(log, n,
                           "drawing " + name + ": " + std::to_string(n) + " bodies (disk " + std::to_string(c.disk) +
                               ", bulge " + std::to_string(c.bulge) + ", halo " + std::to_string(c.halo) + ")");
    const GalaxyModel model = galaxy_model(n, c);
    g.particles.resize(n);
    draw_galaxy_range(n, c, model, params, seed, first_index, g.particles, 0, n, 0, 0);
  }
  Particles<double>& p = g.particles;
  {
    const SetupPhase phase(log, n,
                           name + ": its energy for the Henon scaling (pairs of " +
                               std::to_string(std::min(n, kEnergySubset)) + " bodies)");
    centre(p);
    energy = kinetic_energy(p) + pair_potential_energy(p, kEnergySubset);
  }
  const HenonScale s = henon_scale(1.0, energy, ic_name);
  apply(p, s);
  g.length_unit = s.length;
  return g;
}

void draw_galaxy(std::size_t n, std::uint64_t seed, std::size_t first_index, const GalaxyParams& params,
                 std::string_view ic_name, Particles<double>& out, std::size_t begin, std::size_t end,
                 std::size_t out_offset, std::uint8_t component_base) {
  const GalaxyCounts c = galaxy_counts(n, params, ic_name);
  draw_galaxy_range(n, c, galaxy_model(n, c), params, seed, first_index, out, begin, end, out_offset, component_base);
}

}  // namespace nbody::ic

namespace nbody {

void draw_disk_galaxy(const IcRequest& req, Particles<double>& p, std::size_t begin, std::size_t end) {
  ic::require_at_least("disk-galaxy", req.n, 3);
  ic::draw_galaxy(static_cast<std::size_t>(req.n), req.seed, 0, ic::galaxy_params(req.model), "disk-galaxy", p, begin,
                  end, 0);
}

Particles<double> make_disk_galaxy(const IcRequest& req) {
  ic::require_at_least("disk-galaxy", req.n, 3);
  return ic::make_galaxy(static_cast<std::size_t>(req.n), req.seed, 0, ic::galaxy_params(req.model), "disk-galaxy",
                         req.log)
      .particles;
}

}  // namespace nbody
