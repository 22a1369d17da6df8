// Snap and crackle of every body on the host (gravity/snap_crackle.hpp): the float64 pair sums in
// source order, threaded over targets (the same bits for any thread count).
#include <cstdint>

#include "core/parallel.hpp"
#include "gravity/direct/cpu_direct.hpp"
#include "gravity/snap_crackle.hpp"

namespace nbody::direct {

template <class T>
void reference_snap_crackle(const MotionView<T>& s, ConstVec3Span<T> a, ConstVec3Span<T> j, int first, int count,
                            Vec3Span<T> snap, Vec3Span<T> crackle, const GravityParams& g) {
  const auto n = static_cast<std::int64_t>(s.n);
  const double eps2 = g.eps2();
  const std::int64_t end = std::int64_t(first) + count;
#pragma omp parallel for schedule(static) if (parallel_pairs(count, n))
  for (std::int64_t i = first; i < end; ++i) {
    gravity::Derivatives3 si{0, 0, 0}, ci{0, 0, 0};
    for (std::int64_t k = 0; k < n; ++k) {
      if (k == i) continue;
      const gravity::RelativeMotion d{double(s.x.x[k]) - double(s.x.x[i]), double(s.x.y[k]) - double(s.x.y[i]),
                                      double(s.x.z[k]) - double(s.x.z[i]), double(s.v.x[k]) - double(s.v.x[i]),
                                      double(s.v.y[k]) - double(s.v.y[i]), double(s.v.z[k]) - double(s.v.z[i]),
                                      double(a.x[k]) - double(a.x[i]),     double(a.y[k]) - double(a.y[i]),
                                      double(a.z[k]) - double(a.z[i]),     double(j.x[k]) - double(j.x[i]),
                                      double(j.y[k]) - double(j.y[i]),     double(j.z[k]) - double(j.z[i]),
                                      double(s.m[k])};
      gravity::accumulate_snap_crackle(eps2, d, si, ci);
    }
    snap.x[i] = static_cast<T>(g.G * si.x);
    snap.y[i] = static_cast<T>(g.G * si.y);
    snap.z[i] = static_cast<T>(g.G * si.z);
    crackle.x[i] = static_cast<T>(g.G * ci.x);
    crackle.y[i] = static_cast<T>(g.G * ci.y);
    crackle.z[i] = static_cast<T>(g.G * ci.z);
  }
}

template void reference_snap_crackle<float>(const MotionView<float>&, ConstVec3Span<float>, ConstVec3Span<float>, int,
                                            int, Vec3Span<float>, Vec3Span<float>, const GravityParams&);
template void reference_snap_crackle<double>(const MotionView<double>&, ConstVec3Span<double>, ConstVec3Span<double>,
                                             int, int, Vec3Span<double>, Vec3Span<double>, const GravityParams&);

}  // namespace nbody::direct
