#include "ensemble/store.hpp"

#include <algorithm>

#include "nbody/error.hpp"

namespace nbody::ensemble {

int EnsembleStore::largest_system() const {
  int n = 0;
  for (std::int64_t k = 0; k < systems(); ++k) n = std::max(n, size_of(k));
  return n;
}

void EnsembleStore::add_system(const std::vector<double>& mass, const std::vector<double>& pos,
                               const std::vector<double>& vel) {
  const std::size_t n = mass.size();
  if (pos.size() != 3 * n || vel.size() != 3 * n) throw_runtime_error("ensemble: a system's arrays differ in size");
  for (std::size_t i = 0; i < n; ++i) {
    m.push_back(mass[i]);
    x.push_back(pos[3 * i]), y.push_back(pos[3 * i + 1]), z.push_back(pos[3 * i + 2]);
    vx.push_back(vel[3 * i]), vy.push_back(vel[3 * i + 1]), vz.push_back(vel[3 * i + 2]);
  }
  offset.push_back(offset.back() + std::int64_t(n));
  state.emplace_back();
}

EnsembleStore EnsembleStore::single(std::int64_t k) const {
  EnsembleStore one;
  const auto b = std::size_t(offset[std::size_t(k)]), e = std::size_t(offset[std::size_t(k) + 1]);
  auto part = [&](const std::vector<double>& v) { return std::vector<double>(v.begin() + b, v.begin() + e); };
  one.x = part(x), one.y = part(y), one.z = part(z), one.vx = part(vx), one.vy = part(vy), one.vz = part(vz);
  one.m = part(m);
  one.offset = {0, std::int64_t(e - b)};
  one.state = {state[std::size_t(k)]};
  return one;
}

SystemRef system_ref(EnsembleStore& s, std::int64_t k, Scratch& work) {
  const std::size_t b = std::size_t(s.offset[std::size_t(k)]);
  SystemRef r;
  r.n = s.size_of(k);
  r.x = s.x.data() + b, r.y = s.y.data() + b, r.z = s.z.data() + b;
  r.vx = s.vx.data() + b, r.vy = s.vy.data() + b, r.vz = s.vz.data() + b;
  r.m = s.m.data() + b;
  if (work.a[0].size() < std::size_t(r.n)) work.reserve(std::size_t(r.n));
  double** slots[] = {&r.ax,  &r.ay,  &r.az,  &r.jx,  &r.jy,  &r.jz,  &r.x0,  &r.y0,  &r.z0, &r.vx0,
                      &r.vy0, &r.vz0, &r.ax0, &r.ay0, &r.az0, &r.jx0, &r.jy0, &r.jz0, &r.w,
                      &r.cx,  &r.cy,  &r.cz,  &r.cvx, &r.cvy, &r.cvz};
  static_assert(sizeof(slots) / sizeof(slots[0]) == kScratchArrays);
  for (int q = 0; q < kScratchArrays; ++q) *slots[q] = work.a[q].data();
  r.ias = work.ias.data(), r.ias_stride = (long long)work.a[0].size();
  return r;
}

std::vector<std::int64_t> outcome_counts(const EnsembleStore& s) {
  std::vector<std::int64_t> c(kOutcomes, 0);
  for (const SystemState& st : s.state)
    if (st.status >= 0 && st.status < kOutcomes) ++c[std::size_t(st.status)];
  return c;
}

}  // namespace nbody::ensemble
