#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

// How gravity is softened below the softening length.
//   plummer: a = G m d / (|d|^2 + eps^2)^{3/2} everywhere (never exactly Newtonian);
//   spline:  the cubic-spline kernel of GADGET (Monaghan & Lattanzio 1985; Springel, Yoshida &
//            White 2001) with support h = 2.8 eps: exactly Newtonian for |d| >= h, and the
//            potential at |d| = 0 is -G m / eps, the same as Plummer's (GADGET's convention:
//            eps is the "Plummer-equivalent" softening length).
enum class SofteningLaw { plummer, spline };

[[nodiscard]] std::vector<std::string> softening_law_names();  // {"plummer", "spline"}
// Throws an input error naming `what` for an unknown name.
[[nodiscard]] SofteningLaw parse_softening_law(std::string_view name, std::string_view what = "softening_law");

// Softened Newtonian gravity: a_i = G sum_j m_j d_ij g(|d_ij|), g given by the softening law.
struct GravityParams {
  double G = 1.0;
  double softening = 0.0;  // eps, a length; eps = 0 means unsoftened (coincident bodies exert no force)
  SofteningLaw law = SofteningLaw::plummer;

  [[nodiscard]] double eps2() const noexcept { return softening * softening; }
};

}  // namespace nbody
