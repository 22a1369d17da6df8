#include "comm/sfc_domain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace nbody::comm {
namespace {

// The bodies of this rank in curve order with the inclusive prefix sums of their work, so that
// the work before any point is one binary search.
struct LocalCurve {
  std::vector<SfcPoint> points;
  std::vector<std::uint64_t> before;  // before[k]: work of points[0..k)

  LocalCurve(std::span<const std::uint64_t> keys, std::span<const std::uint64_t> ids,
             std::span<const std::uint64_t> work) {
    const std::size_t n = keys.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    points.resize(n);
    for (std::size_t i = 0; i < n; ++i) points[i] = {keys[i], ids[i]};
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return points[a] < points[b]; });
    std::vector<SfcPoint> sorted(n);
    before.assign(n + 1, 0);
    for (std::size_t k = 0; k < n; ++k) {
      sorted[k] = points[order[k]];
      before[k + 1] = before[k] + std::max<std::uint64_t>(work[order[k]], 1);
    }
    points = std::move(sorted);
  }
  [[nodiscard]] std::uint64_t work_before(SfcPoint p) const {
    return before[std::size_t(std::lower_bound(points.begin(), points.end(), p) - points.begin())];
  }
};

// The largest value v in [lo, hi] with below(v) <= target[r] for every r at once, below being
// non-decreasing and below(lo) <= target: a bisection of 64 steps, one exchange per step.
template <class Below>
std::vector<std::uint64_t> bisect(Communicator& c, std::vector<std::uint64_t> lo, std::vector<std::uint64_t> hi,
                                  const std::vector<std::uint64_t>& target, const Below& below) {
  const std::size_t k = target.size();
  std::vector<std::uint64_t> mid(k), local(k);
  for (int step = 0; step < 64; ++step) {
    for (std::size_t r = 0; r < k; ++r) {
      const std::uint64_t span = hi[r] - lo[r];
      mid[r] = lo[r] + span / 2 + (span & 1);  // the upper middle, so that lo moves
      local[r] = lo[r] == hi[r] ? 0 : below(r, mid[r]);
    }
    const auto total = allreduce_sum_u64(c, local);
    for (std::size_t r = 0; r < k; ++r) {
      if (lo[r] == hi[r]) continue;
      if (total[r] <= target[r]) lo[r] = mid[r];
      else hi[r] = mid[r] - 1;
    }
  }
  return lo;
}

}  // namespace

int SfcDomain::owner(SfcPoint p) const noexcept {
  const auto it = std::upper_bound(first.begin(), first.end(), p);
  return it == first.begin() ? 0 : static_cast<int>(it - first.begin()) - 1;
}

std::vector<std::uint64_t> allreduce_sum_u64(Communicator& c, std::span<const std::uint64_t> mine) {
  const std::size_t k = mine.size();
  std::vector<std::uint64_t> all(k * std::size_t(c.size()));
  const std::vector<std::int64_t> counts(std::size_t(c.size()), std::int64_t(k));
  c.allgatherv(mine.data(), all.data(), counts, DataType::u64);
  std::vector<std::uint64_t> sum(k, 0);
  for (int r = 0; r < c.size(); ++r) {
    for (std::size_t i = 0; i < k; ++i) sum[i] += all[std::size_t(r) * k + i];
  }
  return sum;
}

sfc::KeyBox<double> global_key_box(Communicator& c, std::span<const double> x, std::span<const double> y,
                                             std::span<const double> z) {
  constexpr double lowest = std::numeric_limits<double>::lowest();
  // The maxima of x, y, z and of -x, -y, -z: the upper and the lower corner.
  double m[6] = {lowest, lowest, lowest, lowest, lowest, lowest};
  const std::span<const double> axes[3] = {x, y, z};
  for (int a = 0; a < 3; ++a) {
    for (double v : axes[a]) {
      m[a] = std::max(m[a], v);
      m[a + 3] = std::max(m[a + 3], -v);
    }
  }
  c.allreduce_max(m, 6);
  if (m[0] == lowest) return {0, 0, 0, 1};  // no bodies anywhere
  double size = 0;
  for (int a = 0; a < 3; ++a) size = std::max(size, m[a] + m[a + 3]);
  if (!(size > 0) || !std::isfinite(size)) size = 1;
  size *= 1 + std::ldexp(1.0, -20);
  return {-m[3], -m[4], -m[5], size};
}

SfcDomain decompose(Communicator& c, std::span<const std::uint64_t> keys, std::span<const std::uint64_t> ids,
                    std::span<const std::uint64_t> work, const sfc::KeyBox<double>& box) {
  const int p = c.size();
  const LocalCurve curve(keys, ids, work);
  const std::uint64_t total = allreduce_sum_u64(c, std::span<const std::uint64_t>(&curve.before.back(), 1))[0];
  SfcDomain d;
  d.box = box;
  d.first.assign(std::size_t(p), SfcPoint{});
  if (p == 1) return d;
  const std::size_t k = std::size_t(p - 1);
  std::vector<std::uint64_t> target(k);
  for (std::size_t r = 0; r < k; ++r) {
    // floor(W (r + 1) / P) without overflow: (q P + rem)(r + 1) / P with rem (r + 1) < P^2.
    const std::uint64_t q = total / std::uint64_t(p), rem = total % std::uint64_t(p);
    target[r] = q * (r + 1) + rem * (r + 1) / std::uint64_t(p);
  }
  // First the key of the body that crosses each target (keys are below 2^63), then its id.
  const std::uint64_t key_end = std::uint64_t{1} << (3 * sfc::kKeyBits);
  const auto key = bisect(c, std::vector<std::uint64_t>(k, 0), std::vector<std::uint64_t>(k, key_end), target,
                          [&](std::size_t, std::uint64_t v) { return curve.work_before({v, 0}); });
  const auto id = bisect(c, std::vector<std::uint64_t>(k, 0),
                         std::vector<std::uint64_t>(k, std::numeric_limits<std::uint64_t>::max()), target,
                         [&](std::size_t r, std::uint64_t v) { return curve.work_before({key[r], v}); });
  for (std::size_t r = 0; r < k; ++r) d.first[r + 1] = {key[r], id[r]};
  return d;
}

Balance measure_balance(Communicator& c, std::span<const std::uint64_t> work) {
  std::uint64_t mine = 0;
  for (auto w : work) mine += std::max<std::uint64_t>(w, 1);
  Balance b;
  b.work = c.allgather_value<std::uint64_t>(mine);
  std::uint64_t sum = 0, most = 0;
  for (auto w : b.work) {
    sum += w;
    most = std::max(most, w);
  }
  b.imbalance = sum == 0 ? 1.0 : double(most) * double(c.size()) / double(sum);
  return b;
}

}  // namespace nbody::comm
