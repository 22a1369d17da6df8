#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "nbody/diagnostics.hpp"

namespace nbody {

std::array<double, 7> lagrangian_radii(const Particles<double>& p) {
  std::array<double, 7> out{};
  const std::size_t n = p.size();
  if (n == 0) return out;
  double m = 0, cx = 0, cy = 0, cz = 0;
  for (std::size_t i = 0; i < n; ++i) {
    m += p.m[i];
    cx += p.m[i] * p.x[i];
    cy += p.m[i] * p.y[i];
    cz += p.m[i] * p.z[i];
  }
  if (m <= 0) return out;
  cx /= m;
  cy /= m;
  cz /= m;
  std::vector<std::pair<double, double>> rm(n);  // (distance, mass)
  for (std::size_t i = 0; i < n; ++i) {
    rm[i] = {std::sqrt((p.x[i] - cx) * (p.x[i] - cx) + (p.y[i] - cy) * (p.y[i] - cy) + (p.z[i] - cz) * (p.z[i] - cz)),
             p.m[i]};
  }
  std::sort(rm.begin(), rm.end());
  // Cumulative mass against f M, with a relative tolerance so that k equal masses reach k/N.
  double cumulative = 0;
  std::size_t j = 0;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const double target = kLagrangianFractions[k] * m * (1.0 - 1e-12);
    while (j < n && cumulative + rm[j].second < target) cumulative += rm[j++].second;
    out[k] = rm[std::min(j, n - 1)].first;
  }
  return out;
}

std::string lagrangian_csv_header() {
  std::string h = "step,time";
  char buf[32];
  for (const double f : kLagrangianFractions) {
    std::snprintf(buf, sizeof buf, ",r_%g", f);
    h += buf;
  }
  return h;
}

std::string lagrangian_csv_row(std::int64_t step, double time, const std::array<double, 7>& radii) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld,%.17g", static_cast<long long>(step), time);
  std::string row = buf;
  for (const double r : radii) {
    std::snprintf(buf, sizeof buf, ",%.17g", r);
    row += buf;
  }
  return row;
}

}  // namespace nbody
