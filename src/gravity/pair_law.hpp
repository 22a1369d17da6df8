#pragma once
// Chooses the pair law a GravityParams asks for and calls f with it, so that loops and kernel
// launches are written once as templates over the law:
//   eps > 0:  PlummerPair<T, false> or SplinePair<T> (GravityParams::law);
//   eps = 0:  PlummerPair<T, true>, the unsoftened law under either name (coincident bodies
//             exert no force).
#include "gravity/interaction.hpp"
#include "gravity/params.hpp"

namespace nbody::gravity {

template <class T, class F>
void with_pair_law(const GravityParams& g, F&& f) {
  if (g.eps2() > 0) {
    if (g.law == SofteningLaw::spline) {
      f(SplinePair<T>::from_softening(g.softening));
    } else {
      f(PlummerPair<T, false>{static_cast<T>(g.eps2())});
    }
  } else {
    f(PlummerPair<T, true>{T(0)});
  }
}

}  // namespace nbody::gravity
