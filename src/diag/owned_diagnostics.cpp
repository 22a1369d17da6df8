#include "diag/owned_diagnostics.hpp"

#include <span>

#include "comm/chained_sum.hpp"
#include "gravity/direct/cpu_direct.hpp"
#include "particles/functors.hpp"

namespace nbody {

template <class T>
Moments owned_moments(comm::Communicator& c, const comm::OwnedBodies<T>& b) {
  const std::span<const T> fields[7] = {b.p.x, b.p.y, b.p.z, b.p.vx, b.p.vy, b.p.vz, b.p.m};
  auto f = comm::to_id_block<T>(c, b.n_total, b.p.id, fields, direct::kStreamAlign);
  const auto count = static_cast<int>(f[0].size());
  std::vector<std::uint64_t> ids(f[0].size());  // (MomentTerms does not read them)
  const ParticleView<T> view{{f[0].data(), f[1].data(), f[2].data()},
                             {f[3].data(), f[4].data(), f[5].data()},
                             f[6].data(),
                             ids.data(),
                             count};
  using Terms = particles::MomentTerms<T>;
  const auto q = comm::chained_sum(c, std::vector<double>(Terms::kQuantities, 0.0), [&](std::vector<double>& run) {
    double acc[Terms::kQuantities];
    std::copy(run.begin(), run.end(), acc);
    const Terms terms{view};
    for (int i = 0; i < count; ++i) terms(i, acc);
    std::copy(acc, acc + Terms::kQuantities, run.begin());
  });
  Moments mo;
  mo.mass = q[0];
  mo.kinetic = q[1];
  mo.momentum = {q[2], q[3], q[4]};
  mo.angular = {q[5], q[6], q[7]};
  mo.mass_moment = {q[8], q[9], q[10]};
  return mo;
}

template Moments owned_moments<float>(comm::Communicator&, const comm::OwnedBodies<float>&);
template Moments owned_moments<double>(comm::Communicator&, const comm::OwnedBodies<double>&);

}  // namespace nbody
