#include "ic/model_tools.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "nbody/error.hpp"

namespace nbody::ic {

HenonScale henon_scale(double mass, double energy, std::string_view ic_name) {
  if (!(energy < 0) || !(mass > 0)) {
    throw_input_error("ic: " + std::string(ic_name) + " is not bound (E = " + std::to_string(energy) +
                      "), so it has no Henon scaling");
  }
  const double mu = 1.0 / mass;
  HenonScale s;
  s.length = -4.0 * energy * mu * mu;
  s.velocity = std::sqrt(mu / s.length);
  return s;
}

// The body-by-body passes below change each body alone: the same bits on any number of threads.
void apply(Particles<double>& p, const HenonScale& s) {
  const auto n = static_cast<std::int64_t>(p.size());
#pragma omp parallel for schedule(static) if (n >= 2 * kParallelMinBodies)
  for (std::int64_t k = 0; k < n; ++k) {
    const auto i = static_cast<std::size_t>(k);
    p.x[i] *= s.length;
    p.y[i] *= s.length;
    p.z[i] *= s.length;
    p.vx[i] *= s.velocity;
    p.vy[i] *= s.velocity;
    p.vz[i] *= s.velocity;
  }
}

void rotate_about_x(Particles<double>& p, double angle, std::size_t begin, std::size_t end) {
  const double c = std::cos(angle), s = std::sin(angle);
  const auto n = static_cast<std::int64_t>(end - begin);
#pragma omp parallel for schedule(static) if (n >= 2 * kParallelMinBodies)
  for (std::int64_t k = 0; k < n; ++k) {
    const std::size_t i = begin + static_cast<std::size_t>(k);
    const double y = p.y[i], z = p.z[i], vy = p.vy[i], vz = p.vz[i];
    p.y[i] = c * y - s * z;
    p.z[i] = s * y + c * z;
    p.vy[i] = c * vy - s * vz;
    p.vz[i] = s * vy + c * vz;
  }
}

void shift(Particles<double>& p, std::size_t begin, std::size_t end, const double dx[3], const double dv[3]) {
  const auto n = static_cast<std::int64_t>(end - begin);
#pragma omp parallel for schedule(static) if (n >= 2 * kParallelMinBodies)
  for (std::int64_t k = 0; k < n; ++k) {
    const std::size_t i = begin + static_cast<std::size_t>(k);
    p.x[i] += dx[0];
    p.y[i] += dx[1];
    p.z[i] += dx[2];
    p.vx[i] += dv[0];
    p.vy[i] += dv[1];
    p.vz[i] += dv[2];
  }
}

double kinetic_energy(const Particles<double>& p) {
  double k = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    k += 0.5 * p.m[i] * (p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i] + p.vz[i] * p.vz[i]);
  }
  return k;
}

double pair_potential_energy(const Particles<double>& p, std::size_t max_bodies) {
  const std::size_t n = p.size();
  if (n < 2) return 0;
  const std::size_t stride = (n + max_bodies - 1) / max_bodies;
  const auto rows = static_cast<std::int64_t>((n + stride - 1) / stride);
  // The subset side by side first: with every stride-th body of a large model the pair loop
  // would otherwise fetch a cache line (and at 10^7 bodies a page) for every term.
  const auto count = static_cast<std::size_t>(rows);
  std::vector<double> x(count), y(count), z(count), m(count);
  for (std::size_t k = 0; k < count; ++k) {
    x[k] = p.x[k * stride];
    y[k] = p.y[k * stride];
    z[k] = p.z[k * stride];
    m[k] = p.m[k * stride];
  }
  // Each row is summed by one thread in a fixed order and the rows are added in index order, so
  // the result (and the initial conditions scaled by it) is the same for every thread count. A
  // row's terms are computed first (a loop without a reduction, which the compiler vectorises:
  // square roots and divisions round the same in vector registers), then added in index order;
  // a coincident pair adds 0, which leaves the sum as it is.
  std::vector<double> row_sum(count, 0.0);
#pragma omp parallel if (parallel_pairs(rows, rows))
  {
    std::vector<double> term(count);
#pragma omp for schedule(dynamic, 64)
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto i = static_cast<std::size_t>(r);
      const double xi = x[i], yi = y[i], zi = z[i], mi = m[i];
      for (std::size_t j = i + 1; j < count; ++j) {
        const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
        const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
        term[j] = d > 0 ? mi * m[j] / d : 0.0;
      }
      double s = 0;
      for (std::size_t j = i + 1; j < count; ++j) s += term[j];
      row_sum[i] = s;
    }
  }
  double sum_inv_r = 0;
  for (const double s : row_sum) sum_inv_r += s;
  const double pairs = 0.5 * double(rows) * double(rows - 1);
  if (stride == 1) return -sum_inv_r;
  // Scale the subset's sum to all pairs: the mean of m_i m_j / r_ij over the subset's pairs
  // times the number of pairs of the whole set.
  const double all_pairs = 0.5 * double(n) * double(n - 1);
  return -sum_inv_r / pairs * all_pairs;
}

void place_isotropic(Particles<double>& p, std::size_t i, double r, double v, double m, BodyRng& rng) {
  double ux, uy, uz, wx, wy, wz;
  rng.unit_vector(ux, uy, uz);
  rng.unit_vector(wx, wy, wz);
  p.x[i] = r * ux;
  p.y[i] = r * uy;
  p.z[i] = r * uz;
  p.vx[i] = v * wx;
  p.vy[i] = v * wy;
  p.vz[i] = v * wz;
  p.m[i] = m;
}

void place_in_ball(Particles<double>& p, std::size_t i, double radius, BodyRng& rng) {
  const double r = radius * std::cbrt(rng.uniform());
  double ux, uy, uz;
  rng.unit_vector(ux, uy, uz);
  p.x[i] = r * ux;
  p.y[i] = r * uy;
  p.z[i] = r * uz;
}

void require_at_least(std::string_view ic_name, std::int64_t n, std::int64_t min) {
  if (n < min) {
    throw_input_error("n: " + std::string(ic_name) + " needs at least " + std::to_string(min) + " bodies (got " +
                      std::to_string(n) + ")");
  }
}

}  // namespace nbody::ic
