#include "pic/parallel/balance.hpp"

#include <algorithm>
#include <string>

#include "comm/communicator.hpp"
#include "nbody/error.hpp"

namespace nbody::pic {

std::vector<int> balanced_starts(const std::vector<double>& cost, int ranks, int min_width) {
  const int nx = int(cost.size());
  if (ranks < 1 || min_width < 1 || nx < ranks * min_width)
    throw_runtime_error("pic: " + std::to_string(nx) + " columns cannot make " + std::to_string(ranks) + " slabs of " +
                        std::to_string(min_width));
  std::vector<double> prefix(std::size_t(nx) + 1, 0.0);
  for (int i = 0; i < nx; ++i) prefix[std::size_t(i) + 1] = prefix[std::size_t(i)] + std::max(0.0, cost[std::size_t(i)]);
  const double total = prefix.back();
  std::vector<int> starts(std::size_t(ranks) + 1, 0);
  starts.back() = nx;
  for (int r = 1; r < ranks; ++r) {
    int b = 0;
    if (total > 0) {
      const double target = total * double(r) / double(ranks);
      b = int(std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin());  // prefix[b] >= target
      if (b > 0 && target - prefix[std::size_t(b) - 1] < prefix[std::size_t(std::min(b, nx))] - target) --b;
    } else {
      b = int(comm::block_of(nx, ranks, r).first);
    }
    // at least min_width after the previous start, and room for the slabs still to come
    b = std::max(b, starts[std::size_t(r) - 1] + min_width);
    b = std::min(b, nx - (ranks - r) * min_width);
    starts[std::size_t(r)] = b;
  }
  return starts;
}

double slab_imbalance(const std::vector<double>& cost, const std::vector<int>& starts) {
  const int ranks = int(starts.size()) - 1;
  if (ranks < 1) return 1;
  double total = 0, most = 0;
  for (int r = 0; r < ranks; ++r) {
    double c = 0;
    for (int i = starts[std::size_t(r)]; i < starts[std::size_t(r) + 1]; ++i) c += std::max(0.0, cost[std::size_t(i)]);
    total += c;
    most = std::max(most, c);
  }
  return total > 0 ? most * double(ranks) / total : 1.0;
}

}  // namespace nbody::pic
