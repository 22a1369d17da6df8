#include "ensemble/results.hpp"

#include <cmath>
#include <cstdio>

#include "ensemble/backend.hpp"
#include "ensemble/kepler.hpp"

namespace nbody::ensemble {

std::vector<SystemResult> system_results(EnsembleStore& s, double eps2) {
  std::vector<SystemResult> out(std::size_t(s.systems()));
  for (std::int64_t k = 0; k < s.systems(); ++k) {
    const SystemState& st = s.state[std::size_t(k)];
    SystemResult& r = out[std::size_t(k)];
    r.outcome = st.status, r.time = st.t, r.stop_time = st.stop_time, r.steps = st.steps;
    double e = 0, l = 0;
    final_invariants(s, k, eps2, e, l);
    r.de = st.e0 != 0 ? std::fabs((e - st.e0) / st.e0) : std::fabs(e);
    r.dl = st.l0 != 0 ? std::fabs((l - st.l0) / st.l0) : std::fabs(l);
    // The most bound pair: the lowest two-body energy per reduced mass.
    const auto b = std::size_t(s.offset[std::size_t(k)]);
    const int n = s.size_of(k);
    double best = INFINITY;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const std::size_t p = b + std::size_t(i), q = b + std::size_t(j);
        const double rel[3] = {s.x[q] - s.x[p], s.y[q] - s.y[p], s.z[q] - s.z[p]};
        const double vel[3] = {s.vx[q] - s.vx[p], s.vy[q] - s.vy[p], s.vz[q] - s.vz[p]};
        const double mu = s.m[p] + s.m[q];
        const double d = std::sqrt(rel[0] * rel[0] + rel[1] * rel[1] + rel[2] * rel[2]);
        const double eps = 0.5 * (vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]) - mu / d;
        if (eps < best && mu > 0 && d > 0) {
          best = eps;
          const Elements el = state_to_elements(rel, vel, mu);
          r.pair_i = i, r.pair_j = j, r.a = el.a, r.e = el.e;
        }
      }
  }
  return out;
}

std::string results_csv(const std::vector<SystemResult>& rs) {
  std::string out = "system,outcome,stop_time,time,steps,dE_rel,dL_rel,pair_i,pair_j,a,e\n";
  char line[512];
  for (std::size_t k = 0; k < rs.size(); ++k) {
    const SystemResult& r = rs[k];
    std::snprintf(line, sizeof line, "%zu,%s,%.17g,%.17g,%lld,%.6e,%.6e,%d,%d,%.17g,%.17g\n", k, outcome_name(r.outcome),
                  r.stop_time, r.time, static_cast<long long>(r.steps), r.de, r.dl, r.pair_i, r.pair_j, r.a, r.e);
    out += line;
  }
  return out;
}

std::string final_states_csv(const EnsembleStore& s) {
  std::string out = "system,body,m,x,y,z,vx,vy,vz\n";
  char line[512];
  for (std::int64_t k = 0; k < s.systems(); ++k)
    for (std::int64_t i = s.offset[std::size_t(k)]; i < s.offset[std::size_t(k) + 1]; ++i) {
      const auto q = std::size_t(i);
      std::snprintf(line, sizeof line, "%lld,%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", static_cast<long long>(k),
                    static_cast<long long>(i - s.offset[std::size_t(k)]), s.m[q], s.x[q], s.y[q], s.z[q], s.vx[q], s.vy[q],
                    s.vz[q]);
      out += line;
    }
  return out;
}

}  // namespace nbody::ensemble
