#pragma once
// Particle shapes (B-splines) for the field gather and the current deposition; both use the same
// shape. A quantity at grid points x_i = i (in cell units) sees a particle at xi with the weights
// w[m] at the points first(xi) + m, m = 0 .. support-1; the weights sum to one.
#include <cmath>

#include "core/hd.hpp"

namespace nbody::pic {

enum class ShapeOrder { cic = 1, tsc = 2 };

// Cloud-in-cell: linear weighting over the two nearest points.
struct ShapeCIC {
  static constexpr int order = 1;
  static constexpr int support = 2;
  PIC_HD static int first(double xi) { return int(std::floor(xi)); }
  PIC_HD static void weights(double xi, int first, double* w) {
    const double d = xi - first;
    w[0] = 1.0 - d;
    w[1] = d;
  }
  // The same in arithmetic R (float: the GPU's float32 currents), the offset d taken in float64.
  template <class R>
  PIC_HD static void weights_as(double xi, int first, R* w) {
    const R d = R(xi - first);
    w[0] = R(1) - d;
    w[1] = d;
  }
};

// Triangular-shaped cloud: quadratic weighting over the three nearest points.
struct ShapeTSC {
  static constexpr int order = 2;
  static constexpr int support = 3;
  PIC_HD static int first(double xi) { return int(std::floor(xi + 0.5)) - 1; }
  PIC_HD static void weights(double xi, int first, double* w) {
    const double d = xi - (first + 1);  // in [-1/2, 1/2)
    w[0] = 0.5 * (0.5 - d) * (0.5 - d);
    w[1] = 0.75 - d * d;
    w[2] = 0.5 * (0.5 + d) * (0.5 + d);
  }
  template <class R>
  PIC_HD static void weights_as(double xi, int first, R* w) {
    const R d = R(xi - (first + 1));
    w[0] = R(0.5) * (R(0.5) - d) * (R(0.5) - d);
    w[1] = R(0.75) - d * d;
    w[2] = R(0.5) * (R(0.5) + d) * (R(0.5) + d);
  }
};

}  // namespace nbody::pic
