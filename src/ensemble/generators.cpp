#include "ensemble/generators.hpp"

#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "core/rng.hpp"
#include "core/strings.hpp"
#include "ensemble/kepler.hpp"
#include "nbody/error.hpp"

namespace nbody::ensemble {
namespace {

constexpr double kPi = std::numbers::pi;
// The components of the per-system streams (one per generator).
constexpr std::uint32_t kScatteringStream = 0xE5C0, kPlanetaryStream = 0xE5C1, kPlummerStream = 0xE5C2;

void to_centre_of_mass(SystemBodies& b) {
  double M = 0, c[6] = {0, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < b.m.size(); ++i) {
    M += b.m[i];
    for (int q = 0; q < 3; ++q) c[q] += b.m[i] * b.pos[3 * i + q], c[3 + q] += b.m[i] * b.vel[3 * i + q];
  }
  if (!(M > 0)) return;
  for (std::size_t i = 0; i < b.m.size(); ++i)
    for (int q = 0; q < 3; ++q) b.pos[3 * i + q] -= c[q] / M, b.vel[3 * i + q] -= c[3 + q] / M;
}

void add_body(SystemBodies& b, double m, const double p[3], const double v[3]) {
  b.m.push_back(m);
  for (int q = 0; q < 3; ++q) b.pos.push_back(p[q]), b.vel.push_back(v[q]);
}

// A rotation uniform over SO(3) (a random unit quaternion) applied to vectors.
struct Rotation {
  double r[3][3];
  explicit Rotation(BodyRng& g) {
    const double u1 = g.uniform(), u2 = g.uniform(), u3 = g.uniform();
    const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
    const double w = a * std::sin(2 * kPi * u2), x = a * std::cos(2 * kPi * u2);
    const double y = b * std::sin(2 * kPi * u3), z = b * std::cos(2 * kPi * u3);
    r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - z * w), r[0][2] = 2 * (x * z + y * w);
    r[1][0] = 2 * (x * y + z * w), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - x * w);
    r[2][0] = 2 * (x * z - y * w), r[2][1] = 2 * (y * z + x * w), r[2][2] = 1 - 2 * (x * x + y * y);
  }
  void apply(double v[3]) const {
    const double o[3] = {v[0], v[1], v[2]};
    for (int i = 0; i < 3; ++i) v[i] = r[i][0] * o[0] + r[i][1] * o[1] + r[i][2] * o[2];
  }
};

}  // namespace

SystemBodies scattering_system(const ScatteringSpec& s, std::uint64_t seed, std::int64_t k) {
  BodyRng g(seed, kScatteringStream, std::uint64_t(k));
  // The binary: relative orbit with a random phase, turned to a random orientation.
  const double e = s.thermal_e ? std::sqrt(g.uniform()) : s.e;
  Elements el;
  el.a = s.a, el.e = e, el.mean = 2 * kPi * g.uniform();
  double r[3], v[3];
  const double mb = s.m1 + s.m2;
  elements_to_state(el, mb, r, v);
  const Rotation rot(g);
  rot.apply(r), rot.apply(v);
  SystemBodies b;
  double p1[3], v1[3], p2[3], v2[3];
  for (int q = 0; q < 3; ++q) {
    p1[q] = -s.m2 / mb * r[q], v1[q] = -s.m2 / mb * v[q];
    p2[q] = s.m1 / mb * r[q], v2[q] = s.m1 / mb * v[q];
  }
  add_body(b, s.m1, p1, v1);
  add_body(b, s.m2, p2, v2);
  // The single: a hyperbola about the binary's mass with v_inf and impact parameter b, placed on
  // its incoming branch at distance r0 a (in the x-y plane, coming from -x).
  const double mu = mb + s.m3;
  const double bimp = s.a * std::sqrt(s.b_min * s.b_min + (s.b_max * s.b_max - s.b_min * s.b_min) * g.uniform());
  const double ah = -mu / (s.v_inf * s.v_inf);
  const double eh = std::sqrt(1 + bimp * bimp * s.v_inf * s.v_inf * s.v_inf * s.v_inf / (mu * mu));
  const double r0 = s.r0 * s.a;
  // r = a (1 - e^2) / (1 + e cos f): the true anomaly at r0, before pericentre (f < 0).
  const double p = ah * (1 - eh * eh);
  const double cf = std::fmax(-1.0, std::fmin(1.0, (p / r0 - 1) / eh));
  const double f = -std::acos(cf);
  const double vc = std::sqrt(mu / p);
  // Pericentre along +x rotated so that the incoming asymptote points along +x: the orbit as is
  // (the orientation of the binary is random already).
  double ps[3] = {r0 * std::cos(f), r0 * std::sin(f), 0}, vs[3] = {-vc * std::sin(f), vc * (eh + std::cos(f)), 0};
  // The relative state goes to the bodies by the two masses.
  double p3[3], v3[3];
  for (int q = 0; q < 3; ++q) {
    p3[q] = mb / mu * ps[q], v3[q] = mb / mu * vs[q];
    const double pb = -s.m3 / mu * ps[q], vb = -s.m3 / mu * vs[q];
    b.pos[q] += pb, b.pos[3 + q] += pb, b.vel[q] += vb, b.vel[3 + q] += vb;
  }
  add_body(b, s.m3, p3, v3);
  to_centre_of_mass(b);
  return b;
}

SystemBodies planetary_system(const PlanetarySpec& s, std::uint64_t seed, std::int64_t k) {
  BodyRng g(seed, kPlanetaryStream, std::uint64_t(k));
  SystemBodies b;
  const double zero[3] = {0, 0, 0};
  add_body(b, s.star_mass, zero, zero);
  for (std::size_t i = 0; i < s.mass.size(); ++i) {
    Elements el;
    el.a = s.a[i];
    el.e = s.e.empty() ? 0 : s.e[i];
    el.inc = s.inc.empty() ? 0 : s.inc[i];
    el.node = s.node.empty() ? 0 : s.node[i];
    el.peri = s.peri.empty() ? 0 : s.peri[i];
    el.mean = s.mean.empty() ? 0 : s.mean[i];
    if (s.random_angles) {
      el.node = 2 * kPi * g.uniform(), el.peri = 2 * kPi * g.uniform(), el.mean = 2 * kPi * g.uniform();
    }
    // Heliocentric elements about the star and the planet (Jacobi-free: the planets' masses are small).
    double r[3], v[3];
    elements_to_state(el, s.star_mass + s.mass[i], r, v);
    add_body(b, s.mass[i], r, v);
  }
  to_centre_of_mass(b);
  return b;
}

SystemBodies plummer_system(const PlummerSpec& s, std::uint64_t seed, std::int64_t k) {
  BodyRng g(seed, kPlummerStream, std::uint64_t(k));
  SystemBodies b;
  // Scale radius a = 3 pi / 16 gives the virial radius 1 (total mass 1, G = 1).
  const double a = 3 * kPi / 16;
  for (int i = 0; i < s.n; ++i) {
    double r;
    do r = a / std::sqrt(std::pow(g.uniform_open(), -2.0 / 3.0) - 1);
    while (r > 20 * a);
    // The speed from q^2 (1 - q^2)^3.5 by rejection, in units of the escape speed.
    double q, y;
    do q = g.uniform(), y = 0.1 * g.uniform();
    while (y > q * q * std::pow(1 - q * q, 3.5));
    const double ve = q * std::sqrt(2.0) / std::pow(r * r + a * a, 0.25);
    double p[3], v[3];
    g.unit_vector(p[0], p[1], p[2]);
    g.unit_vector(v[0], v[1], v[2]);
    for (int c = 0; c < 3; ++c) p[c] *= r, v[c] *= ve;
    add_body(b, 1.0 / s.n, p, v);
  }
  to_centre_of_mass(b);
  return b;
}

EnsembleStore read_system_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw_input_error("ensemble table '" + path + "': cannot open it (no such file or not readable)");
  std::string line;
  std::int64_t line_no = 0;
  auto fail = [&](const std::string& what) {
    throw_input_error("ensemble table '" + path + "' line " + std::to_string(line_no) + ": " + what);
  };
  static const char* kColumns[] = {"system", "m", "x", "y", "z", "vx", "vy", "vz"};
  if (!std::getline(in, line)) throw_input_error("ensemble table '" + path + "': empty (expected the header system,m,x,y,z,vx,vy,vz)");
  ++line_no;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line != "system,m,x,y,z,vx,vy,vz") fail("the header " + quoted_text(line) + " is not system,m,x,y,z,vx,vy,vz");
  EnsembleStore store;
  SystemBodies cur;
  std::int64_t current = -1;
  auto flush = [&] {
    if (current >= 0) store.add_system(cur.m, cur.pos, cur.vel);
    cur = SystemBodies{};
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> cells;
    for (std::size_t at = 0;;) {
      const std::size_t end = line.find(',', at);
      cells.push_back(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
      if (end == std::string::npos) break;
      at = end + 1;
    }
    if (cells.size() != 8) fail(std::to_string(cells.size()) + " columns where 8 are expected (system,m,x,y,z,vx,vy,vz)");
    double v[8];
    for (int c = 0; c < 8; ++c) {
      const std::string& cell = cells[std::size_t(c)];
      char* stop = nullptr;
      v[c] = std::strtod(cell.c_str(), &stop);
      if (cell.empty() || stop != cell.c_str() + cell.size() || !std::isfinite(v[c]))
        fail(std::string(kColumns[c]) + ": " + quoted_text(cell) + " is not a finite number");
    }
    const double sys = v[0];
    if (std::floor(sys) != sys || sys < 0) fail(format_line("system: %.6g is not a system number", sys));
    if (std::int64_t(sys) != current) {
      if (std::int64_t(sys) != current + 1)
        fail(format_line("system: %.0f where %lld was expected (the systems in order, each one's bodies together)", sys,
                         static_cast<long long>(current + 1)));
      flush();
      current = std::int64_t(sys);
    }
    if (!(v[1] >= 0)) fail(format_line("m: %.6g must be >= 0", v[1]));
    if (cur.m.size() >= 1024) fail("a system of more than 1024 bodies");
    const double p[3] = {v[2], v[3], v[4]}, u[3] = {v[5], v[6], v[7]};
    add_body(cur, v[1], p, u);
  }
  flush();
  if (store.systems() == 0) throw_input_error("ensemble table '" + path + "': no bodies");
  for (std::int64_t k = 0; k < store.systems(); ++k)
    if (store.size_of(k) < 2)
      throw_input_error("ensemble table '" + path + "': system " + std::to_string(k) + " has one body (at least 2)");
  return store;
}

EnsembleStore make_systems(const EnsembleConfig& c) {
  if (c.generator == Generator::table) return read_system_table(c.table);
  EnsembleStore s;
  for (std::int64_t k = 0; k < c.systems; ++k) {
    SystemBodies b = c.generator == Generator::scattering  ? scattering_system(c.scattering, c.seed, k)
                     : c.generator == Generator::planetary ? planetary_system(c.planetary, c.seed, k)
                                                           : plummer_system(c.plummer, c.seed, k);
    s.add_system(b.m, b.pos, b.vel);
  }
  return s;
}

}  // namespace nbody::ensemble
