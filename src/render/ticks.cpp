#include "render/ticks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nbody::render {

std::string tick_label(double v, double step) {
  char b[48];
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e5 || a < 1e-3)) {
    std::snprintf(b, sizeof b, "%.3g", v);
  } else {
    const int decimals = step > 0 ? std::max(0, int(-std::floor(std::log10(step) + 1e-9))) : 3;
    std::snprintf(b, sizeof b, "%.*f", std::min(decimals, 6), v);
  }
  std::string s = b;
  if (s.find_first_not_of("-0.") == std::string::npos && s[0] == '-') s.erase(0, 1);  // "-0.0" -> "0.0"
  return s;
}

std::vector<Tick> linear_ticks(double lo, double hi, int target) {
  std::vector<Tick> t;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || target < 1) return t;
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double n = raw / mag;
  const double step = (n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10) * mag;
  const double eps = 1e-9 * (hi - lo);
  for (double k = std::ceil((lo - eps) / step); k * step <= hi + eps; k += 1) {
    const double v = k * step;
    t.push_back({v, tick_label(v, step)});
  }
  return t;
}

std::vector<Tick> log_ticks(double lo, double hi, int most) {
  std::vector<Tick> t;
  if (!(lo > 0) || !(hi > lo)) return t;
  const int e0 = int(std::ceil(std::log10(lo) - 1e-9)), e1 = int(std::floor(std::log10(hi) + 1e-9));
  if (e1 - e0 + 1 >= 2) {
    const int every = std::max(1, (e1 - e0 + most) / most);
    char b[16];
    for (int e = e0; e <= e1; e += every) {
      std::snprintf(b, sizeof b, "1e%d", e);
      t.push_back({std::pow(10.0, e), e == 0 ? "1" : b});
    }
    return t;
  }
  char b[48];
  for (double v : {lo, hi}) {
    std::snprintf(b, sizeof b, "%.3g", v);
    t.push_back({v, b});
  }
  return t;
}

}  // namespace nbody::render
