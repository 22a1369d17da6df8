#pragma once

namespace nbody {

// Plummer-softened Newtonian gravity: a_i = G sum_j m_j r_ij / (|r_ij|^2 + eps^2)^{3/2}.
struct GravityParams {
  double G = 1.0;
  double softening = 0.0;  // eps, a length; eps = 0 means unsoftened (coincident bodies exert no force)

  [[nodiscard]] double eps2() const noexcept { return softening * softening; }
};

}  // namespace nbody
