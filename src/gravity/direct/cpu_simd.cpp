// Compiled with -fno-math-errno (so sqrt vectorises) and FMA contraction; see src/CMakeLists.txt.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/parallel.hpp"
#include "gravity/direct/cpu_direct.hpp"
#include "gravity/pair_law.hpp"

namespace nbody::direct {
namespace {

// Sources a float32 partial sum takes before it joins the running sum: a single float32
// accumulator loses terms of a fraction of its last place one by one (a neighbour's pull beside
// thousands of far ones: tests/test_forces.cpp, ManySmallTermsBesideALargeOneAddUp), whether or
// not the compiler splits the loop over vector lanes. 256 as the GPU's tiles.
constexpr std::int64_t kFloatChunk = 256;

// Adds the pulls of sources [0, n) on (xi, yi, zi) to (ax, ay, az) (float, or double for mixed
// precision), kFloatChunk sources a float32 partial sum at a time.
template <class Acc, class Pair>
void add_float_pulls(const Pair& pair, const float* __restrict__ x, const float* __restrict__ y,
                     const float* __restrict__ z, const float* __restrict__ m, std::int64_t n, float xi, float yi,
                     float zi, Acc& ax, Acc& ay, Acc& az) {
  for (std::int64_t c = 0; c < n; c += kFloatChunk) {
    const std::int64_t end = std::min(n, c + kFloatChunk);
    float cx = 0, cy = 0, cz = 0;
#pragma omp simd reduction(+ : cx, cy, cz)
    for (std::int64_t j = c; j < end; ++j) pair.accumulate(x[j] - xi, y[j] - yi, z[j] - zi, m[j], cx, cy, cz);
    ax += cx;
    ay += cy;
    az += cz;
  }
}

// With eps > 0 the i = j term is exactly zero (d = 0 times a finite factor); only eps = 0
// needs the guarded pair (see gravity::with_pair_law).
template <class T, class Pair>
void accelerations_impl(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> a, const GravityParams& g,
                        const Pair pair) {
  const auto count = static_cast<std::int64_t>(t.n);
  const auto n = static_cast<std::int64_t>(s.n);
  const T G = static_cast<T>(g.G);
  const T* __restrict__ x = s.x;
  const T* __restrict__ y = s.y;
  const T* __restrict__ z = s.z;
  const T* __restrict__ m = s.m;
#pragma omp parallel for schedule(static) if (parallel_pairs(count, n))
  for (std::int64_t i = 0; i < count; ++i) {
    const T xi = t.x[i], yi = t.y[i], zi = t.z[i];
    T ax = 0, ay = 0, az = 0;
    if constexpr (std::is_same_v<T, float>) {
      add_float_pulls(pair, x, y, z, m, n, xi, yi, zi, ax, ay, az);
    } else {
#pragma omp simd reduction(+ : ax, ay, az)
      for (std::int64_t j = 0; j < n; ++j) {
        pair.accumulate(x[j] - xi, y[j] - yi, z[j] - zi, m[j], ax, ay, az);
      }
    }
    a.x[i] = G * ax;
    a.y[i] = G * ay;
    a.z[i] = G * az;
  }
}

// Like the force pass: the inner loop sums in T over chunks (vectorised, short enough that a
// float32 partial sum keeps its precision), the chunks in float64; the self term is left out by
// splitting the source range at i rather than by a select in the loop.
template <class T, class Pair>
double potential_energy_impl(const SourceView<T>& s, const GravityParams& g, const Pair pair) {
  constexpr std::int64_t kChunk = 1024;
  const auto n = static_cast<std::int64_t>(s.n);
  std::vector<double> phi(s.n);
  const T* __restrict__ x = s.x;
  const T* __restrict__ y = s.y;
  const T* __restrict__ z = s.z;
  const T* __restrict__ m = s.m;
#pragma omp parallel for schedule(static) if (parallel_pairs(n, n))
  for (std::int64_t i = 0; i < n; ++i) {
    const T xi = x[i], yi = y[i], zi = z[i];
    double p = 0;
    for (const auto& [begin, end] : {std::pair{std::int64_t{0}, i}, std::pair{i + 1, n}}) {
      for (std::int64_t c = begin; c < end; c += kChunk) {
        const std::int64_t stop = std::min(end, c + kChunk);
        T q = 0;
#pragma omp simd reduction(+ : q)
        for (std::int64_t j = c; j < stop; ++j) q += pair.potential(x[j] - xi, y[j] - yi, z[j] - zi, m[j]);
        p += double(q);
      }
    }
    phi[i] = p;
  }
  double w = 0;
  for (std::int64_t i = 0; i < n; ++i) w += double(m[i]) * phi[i];
  return 0.5 * g.G * w;
}

template <class T, class Pair>
void acc_jerk_impl(const IndexView& t, const MotionView<T>& s, Vec3Span<T> acc, Vec3Span<T> jerk,
                   const GravityParams& g, const Pair pair) {
  const auto count = static_cast<std::int64_t>(t.count);
  const auto n = static_cast<std::int64_t>(s.n);
  const T G = static_cast<T>(g.G);
  const T* __restrict__ x = s.x.x;
  const T* __restrict__ y = s.x.y;
  const T* __restrict__ z = s.x.z;
  const T* __restrict__ vx = s.v.x;
  const T* __restrict__ vy = s.v.y;
  const T* __restrict__ vz = s.v.z;
  const T* __restrict__ m = s.m;
  // Few targets (a small block of the block time steps) against many sources: below the work
  // threshold (targets x sources) such passes run on one thread.
#pragma omp parallel for schedule(static) if (parallel_pairs(count, n))
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t i = t.index[k];
    const T xi = x[i], yi = y[i], zi = z[i], ui = vx[i], vi = vy[i], wi = vz[i];
    T ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
#pragma omp simd reduction(+ : ax, ay, az, jx, jy, jz)
    for (std::int64_t j = 0; j < n; ++j) {
      pair.accumulate_jerk(x[j] - xi, y[j] - yi, z[j] - zi, vx[j] - ui, vy[j] - vi, vz[j] - wi, m[j], ax, ay, az, jx,
                           jy, jz);
    }
    acc.x[k] = G * ax;
    acc.y[k] = G * ay;
    acc.z[k] = G * az;
    jerk.x[k] = G * jx;
    jerk.y[k] = G * jy;
    jerk.z[k] = G * jz;
  }
}

// One piece of a streamed pass (simd_accumulate_pulls): float32 as accelerations_impl's chunks,
// float64 in chunks of kFloatChunk added to the running sum.
template <class T, class Pair>
void accumulate_impl(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<double> sums, const Pair pair) {
  const auto count = static_cast<std::int64_t>(t.n);
  const auto n = static_cast<std::int64_t>(s.n);
  const T* __restrict__ x = s.x;
  const T* __restrict__ y = s.y;
  const T* __restrict__ z = s.z;
  const T* __restrict__ m = s.m;
#pragma omp parallel for schedule(static) if (parallel_pairs(count, n))
  for (std::int64_t i = 0; i < count; ++i) {
    const T xi = t.x[i], yi = t.y[i], zi = t.z[i];
    T ax = T(sums.x[i]), ay = T(sums.y[i]), az = T(sums.z[i]);  // exact: the sums are of T
    if constexpr (std::is_same_v<T, float>) {
      add_float_pulls(pair, x, y, z, m, n, xi, yi, zi, ax, ay, az);
    } else {
      for (std::int64_t c = 0; c < n; c += kFloatChunk) {
        const std::int64_t end = std::min(n, c + kFloatChunk);
        T cx = 0, cy = 0, cz = 0;
#pragma omp simd reduction(+ : cx, cy, cz)
        for (std::int64_t j = c; j < end; ++j) pair.accumulate(x[j] - xi, y[j] - yi, z[j] - zi, m[j], cx, cy, cz);
        ax += cx;
        ay += cy;
        az += cz;
      }
    }
    sums.x[i] = ax;
    sums.y[i] = ay;
    sums.z[i] = az;
  }
}

// One piece of simd_accumulate_potential.
template <class T, class Pair>
void accumulate_potential_impl(const TargetView<T>& t, const std::uint64_t* own_index, const SourceView<T>& s,
                               std::int64_t first, double* phi, const Pair pair) {
  const auto count = static_cast<std::int64_t>(t.n);
  const auto n = static_cast<std::int64_t>(s.n);
  const T* __restrict__ x = s.x;
  const T* __restrict__ y = s.y;
  const T* __restrict__ z = s.z;
  const T* __restrict__ m = s.m;
#pragma omp parallel for schedule(static) if (parallel_pairs(count, n))
  for (std::int64_t i = 0; i < count; ++i) {
    const T xi = t.x[i], yi = t.y[i], zi = t.z[i];
    const std::int64_t own = static_cast<std::int64_t>(own_index[i]) - first;
    double p = phi[i];
    for (std::int64_t c = 0; c < n; c += kStreamAlign) {
      const std::int64_t stop = std::min(n, c + kStreamAlign);
      // The chunk without the target's own term: [c, own) and (own, stop), or all of it.
      const std::int64_t cut = (own >= c && own < stop) ? own : stop;
      const std::int64_t resume = cut == own ? own + 1 : stop;
      T q = 0;
#pragma omp simd reduction(+ : q)
      for (std::int64_t j = c; j < cut; ++j) q += pair.potential(x[j] - xi, y[j] - yi, z[j] - zi, m[j]);
#pragma omp simd reduction(+ : q)
      for (std::int64_t j = resume; j < stop; ++j) q += pair.potential(x[j] - xi, y[j] - yi, z[j] - zi, m[j]);
      p += double(q);
    }
    phi[i] = p;
  }
}

}  // namespace

template <class T>
void simd_accumulate_potential(const TargetView<T>& t, const std::uint64_t* target_index, const SourceView<T>& piece,
                               std::int64_t first, double* phi, const GravityParams& g) {
  gravity::with_pair_law<T>(
      g, [&](const auto pair) { accumulate_potential_impl(t, target_index, piece, first, phi, pair); });
}

template <class T>
void simd_accumulate_pulls(const TargetView<T>& t, const SourceView<T>& piece, Vec3Span<double> sums,
                           const GravityParams& g) {
  gravity::with_pair_law<T>(g, [&](const auto pair) { accumulate_impl(t, piece, sums, pair); });
}

void simd_accumulate_pulls_mixed(const TargetView<double>& t, const SourceView<double>& s, Vec3Span<double> sums,
                                 const GravityParams& g) {
  const auto count = static_cast<std::int64_t>(t.n);
  const auto n = static_cast<std::int64_t>(s.n);
  const auto size = static_cast<std::size_t>(n);
  std::vector<float> xf(size), yf(size), zf(size), mf(size);
  for (std::int64_t j = 0; j < n; ++j) {
    xf[j] = float(s.x[j]);
    yf[j] = float(s.y[j]);
    zf[j] = float(s.z[j]);
    mf[j] = float(s.m[j]);
  }
  gravity::with_pair_law<float>(g, [&](const auto pair) {
    const float* __restrict__ x = xf.data();
    const float* __restrict__ y = yf.data();
    const float* __restrict__ z = zf.data();
    const float* __restrict__ m = mf.data();
#pragma omp parallel for schedule(static) if (parallel_pairs(count, n))
    for (std::int64_t i = 0; i < count; ++i) {
      const float xi = float(t.x[i]), yi = float(t.y[i]), zi = float(t.z[i]);
      double ax = sums.x[i], ay = sums.y[i], az = sums.z[i];
      add_float_pulls(pair, x, y, z, m, n, xi, yi, zi, ax, ay, az);
      sums.x[i] = ax;
      sums.y[i] = ay;
      sums.z[i] = az;
    }
  });
}

template <class T>
void simd_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> a, const GravityParams& g) {
  gravity::with_pair_law<T>(g, [&](const auto pair) { accelerations_impl(t, s, a, g, pair); });
}

void simd_accelerations_mixed(const TargetView<double>& t, const SourceView<double>& s, Vec3Span<double> a,
                              const GravityParams& g) {
  // The streamed sums from zero (the same additions in the same order), then G once a body.
  const auto count = static_cast<std::int64_t>(t.n);
  std::fill_n(a.x, count, 0.0);
  std::fill_n(a.y, count, 0.0);
  std::fill_n(a.z, count, 0.0);
  simd_accumulate_pulls_mixed(t, s, a, g);
  for (std::int64_t i = 0; i < count; ++i) {
    a.x[i] = g.G * a.x[i];
    a.y[i] = g.G * a.y[i];
    a.z[i] = g.G * a.z[i];
  }
}

template <class T>
double simd_potential_energy(const SourceView<T>& s, const GravityParams& g) {
  double w = 0;
  gravity::with_pair_law<T>(g, [&](const auto pair) { w = potential_energy_impl(s, g, pair); });
  return w;
}

template <class T>
void simd_acc_jerk(const IndexView& t, const MotionView<T>& s, Vec3Span<T> acc, Vec3Span<T> jerk,
                   const GravityParams& g) {
  gravity::with_pair_law<T>(g, [&](const auto pair) { acc_jerk_impl(t, s, acc, jerk, g, pair); });
}

#define NBODY_INSTANTIATE(T)                                                                                     \
  template void simd_accelerations<T>(const TargetView<T>&, const SourceView<T>&, Vec3Span<T>, const GravityParams&); \
  template double simd_potential_energy<T>(const SourceView<T>&, const GravityParams&);                            \
  template void simd_acc_jerk<T>(const IndexView&, const MotionView<T>&, Vec3Span<T>, Vec3Span<T>, const GravityParams&); \
  template void simd_accumulate_pulls<T>(const TargetView<T>&, const SourceView<T>&, Vec3Span<double>, const GravityParams&); \
  template void simd_accumulate_potential<T>(const TargetView<T>&, const std::uint64_t*, const SourceView<T>&, \
                                             std::int64_t, double*, const GravityParams&);
NBODY_INSTANTIATE(float)
NBODY_INSTANTIATE(double)
#undef NBODY_INSTANTIATE

}  // namespace nbody::direct
