#pragma once
// Density profiles n(x, y) in units of n_c. The x dependence is one of
//   uniform      n0 for x_start <= x < x_end
//   step         0 before x_start, n0 from x_start to x_end (the same as uniform with bounds)
//   linear       a linear ramp from 0 at x_start to n0 at x_start + ramp, then n0 up to x_end
//   exponential  n0 exp(-(x_start + ramp - x) / scale) over the ramp, then n0 up to x_end
//   table        piecewise linear through (xs, ns), zero outside
//   expression   an expression of x and y (density_expression.hpp), cut to x_start <= x < x_end
// and the profile is zero outside y_min <= y < y_max.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "pic/physics/density_expression.hpp"

namespace nbody::pic {

enum class ProfileKind { uniform, step, linear, exponential, table, expression };

struct DensityProfile {
  ProfileKind kind = ProfileKind::uniform;
  double n0 = 0;
  double x_start = -std::numeric_limits<double>::infinity();
  double x_end = std::numeric_limits<double>::infinity();
  double y_min = -std::numeric_limits<double>::infinity();
  double y_max = std::numeric_limits<double>::infinity();
  double ramp = 0;   // linear and exponential: length of the ramp
  double scale = 1;  // exponential: scale length
  std::vector<double> xs, ns;  // table
  std::shared_ptr<const DensityExpression> expression;  // expression: evaluated at (x, y) / expression_length
  double expression_length = 1;

  [[nodiscard]] double operator()(double x, double y) const;
};

bool parse_profile_kind(const std::string& s, ProfileKind& k);

}  // namespace nbody::pic
