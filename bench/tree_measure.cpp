#include "tree_measure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <unordered_set>

namespace nbody::bench::treebench {

std::vector<std::int32_t> sample_targets(std::int64_t n, int k, std::uint64_t seed) {
  std::vector<std::int32_t> out;
  if (n <= 0 || k <= 0) return out;
  if (k >= n) {
    out.resize(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) out[std::size_t(i)] = std::int32_t(i);
    return out;
  }
  // Floyd's algorithm: k distinct values with k draws.
  std::mt19937_64 rng(seed);
  std::unordered_set<std::int64_t> chosen;
  for (std::int64_t j = n - k; j < n; ++j) {
    const std::int64_t t = std::int64_t(rng() % std::uint64_t(j + 1));
    chosen.insert(chosen.count(t) ? j : t);
  }
  out.assign(chosen.begin(), chosen.end());
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
constexpr int kTargetBlock = 16;  // targets a block: one accumulator lane each
}

void reference_accelerations(const double* x, const double* y, const double* z, const double* m, std::int64_t n,
                             const std::vector<std::int32_t>& targets, double G, double eps2, std::vector<double>& ax,
                             std::vector<double>& ay, std::vector<double>& az) {
  const auto count = std::int64_t(targets.size());
  ax.assign(targets.size(), 0.0);
  ay.assign(targets.size(), 0.0);
  az.assign(targets.size(), 0.0);
  const std::int64_t blocks = (count + kTargetBlock - 1) / kTargetBlock;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t b = 0; b < blocks; ++b) {
    alignas(64) double tx[kTargetBlock], ty[kTargetBlock], tz[kTargetBlock];
    alignas(64) double sx[kTargetBlock] = {}, sy[kTargetBlock] = {}, sz[kTargetBlock] = {};
    const std::int64_t first = b * kTargetBlock;
    const int lanes = int(std::min<std::int64_t>(kTargetBlock, count - first));
    for (int l = 0; l < kTargetBlock; ++l) {
      const std::int32_t i = targets[std::size_t(first + std::min(l, lanes - 1))];
      tx[l] = x[i], ty[l] = y[i], tz[l] = z[i];
    }
    for (std::int64_t j = 0; j < n; ++j) {
      const double xj = x[j], yj = y[j], zj = z[j], mj = m[j];
#pragma omp simd
      for (int l = 0; l < kTargetBlock; ++l) {
        const double dx = xj - tx[l], dy = yj - ty[l], dz = zj - tz[l];
        const double r2 = dx * dx + dy * dy + dz * dz + eps2;
        const double inv = r2 > 0.0 ? 1.0 / std::sqrt(r2) : 0.0;
        const double f = mj * inv * inv * inv;
        sx[l] += dx * f;
        sy[l] += dy * f;
        sz[l] += dz * f;
      }
    }
    for (int l = 0; l < lanes; ++l) {
      ax[std::size_t(first + l)] = G * sx[l];
      ay[std::size_t(first + l)] = G * sy[l];
      az[std::size_t(first + l)] = G * sz[l];
    }
  }
}

Percentiles percentiles(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  for (double& e : v)
    if (std::isnan(e)) e = std::numeric_limits<double>::infinity();
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size();
  auto rank = [&](double q) {
    const auto r = std::size_t(std::ceil(q / 100.0 * double(k)));
    return v[std::clamp<std::size_t>(r, 1, k) - 1];
  };
  p.p50 = rank(50);
  p.p90 = rank(90);
  p.p99 = rank(99);
  p.max = v.back();
  return p;
}

std::vector<double> relative_errors(const std::vector<double>& ax, const std::vector<double>& ay,
                                    const std::vector<double>& az, const std::vector<double>& rx,
                                    const std::vector<double>& ry, const std::vector<double>& rz) {
  std::vector<double> e(rx.size());
  for (std::size_t k = 0; k < rx.size(); ++k) {
    const double dx = ax[k] - rx[k], dy = ay[k] - ry[k], dz = az[k] - rz[k];
    const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
    const double r = std::sqrt(rx[k] * rx[k] + ry[k] * ry[k] + rz[k] * rz[k]);
    e[k] = r > 0 ? d / r : d;
  }
  return e;
}

TimedPoint direct_time(const std::vector<TimedPoint>& direct, double n) {
  const TimedPoint* largest = nullptr;
  for (const TimedPoint& p : direct) {
    if (p.n == n && !p.extrapolated) return p;
    if (!p.extrapolated && (largest == nullptr || p.n > largest->n)) largest = &p;
  }
  if (largest == nullptr) return {n, -1, true};
  const double r = n / largest->n;
  return {n, largest->seconds * r * r, true};
}

Crossover find_crossover(const std::vector<TimedPoint>& tree, const std::vector<TimedPoint>& direct) {
  Crossover c;
  bool any_direct = false;
  for (const TimedPoint& p : direct) any_direct = any_direct || !p.extrapolated;
  if (tree.empty() || !any_direct) return c;
  double prev_diff = 0;
  bool prev_extrapolated = false;
  for (std::size_t k = 0; k < tree.size(); ++k) {
    const TimedPoint d = direct_time(direct, tree[k].n);
    const double diff = std::log(tree[k].seconds) - std::log(d.seconds);  // > 0: the direct sum is faster
    if (diff <= 0) {
      c.below = k == 0 ? 0 : k - 1;
      c.above = k;
      if (k == 0) {
        c.kind = "at or below";
        c.n = tree[0].n;
        c.extrapolated = d.extrapolated;
      } else {
        c.kind = "interpolated";
        const double l0 = std::log(tree[k - 1].n), l1 = std::log(tree[k].n);
        c.n = std::exp(l0 + prev_diff / (prev_diff - diff) * (l1 - l0));
        c.extrapolated = d.extrapolated || prev_extrapolated;
      }
      return c;
    }
    prev_diff = diff;
    prev_extrapolated = d.extrapolated;
  }
  c.kind = "not reached";
  c.n = tree.back().n;
  c.extrapolated = prev_extrapolated;
  c.below = c.above = tree.size() - 1;
  return c;
}

bool parse_body_count(const std::string& text, std::int64_t& out) {
  if (text.empty()) return false;
  double v = 0;
  const auto caret = text.find('^');
  char* end = nullptr;
  if (caret != std::string::npos) {
    const std::string base = text.substr(0, caret), exp = text.substr(caret + 1);
    if (base.empty() || exp.empty()) return false;
    const double b = std::strtod(base.c_str(), &end);
    if (*end != '\0') return false;
    const double e = std::strtod(exp.c_str(), &end);
    if (*end != '\0') return false;
    v = std::pow(b, e);
  } else {
    v = std::strtod(text.c_str(), &end);
    if (*end != '\0') return false;
  }
  if (!std::isfinite(v) || v < 1 || v >= 2147483648.0 || v != std::floor(v)) return false;
  out = std::int64_t(v);
  return true;
}

}  // namespace nbody::bench::treebench
