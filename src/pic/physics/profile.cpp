#include "pic/physics/profile.hpp"

#include <algorithm>
#include <cmath>

namespace nbody::pic {

double DensityProfile::operator()(double x, double y) const {
  if (y < y_min || y >= y_max) return 0.0;
  if (kind == ProfileKind::table) {
    if (xs.size() < 2 || x < xs.front() || x > xs.back()) return 0.0;
    const auto it = std::upper_bound(xs.begin(), xs.end(), x);
    const std::size_t k = std::min<std::size_t>(std::size_t(it - xs.begin()), xs.size() - 1);
    const double a = (x - xs[k - 1]) / (xs[k] - xs[k - 1]);
    return (1 - a) * ns[k - 1] + a * ns[k];
  }
  if (x < x_start || x >= x_end) return 0.0;
  switch (kind) {
    case ProfileKind::expression: return (*expression)(x / expression_length, y / expression_length);
    case ProfileKind::linear:
      if (ramp > 0 && x < x_start + ramp) return n0 * (x - x_start) / ramp;
      return n0;
    case ProfileKind::exponential:
      if (x < x_start + ramp) return n0 * std::exp(-(x_start + ramp - x) / scale);
      return n0;
    default: return n0;
  }
}

bool parse_profile_kind(const std::string& s, ProfileKind& k) {
  if (s == "uniform") k = ProfileKind::uniform;
  else if (s == "step") k = ProfileKind::step;
  else if (s == "linear") k = ProfileKind::linear;
  else if (s == "exponential") k = ProfileKind::exponential;
  else if (s == "table") k = ProfileKind::table;
  else if (s == "expression") k = ProfileKind::expression;
  else return false;
  return true;
}

}  // namespace nbody::pic
