#pragma once
// The results table of an ensemble: one row per system with its outcome (the stop and when),
// the steps it took, its energy and angular-momentum errors and its final state, written as CSV
// (results.csv) and, where the build has HDF5, results.h5 (one dataset per column).
// Systems of two bodies also get their relative orbit's elements; larger ones the elements of
// their two most bound bodies (a binary's a and e after a scattering).
#include <filesystem>
#include <string>
#include <vector>

#include "ensemble/store.hpp"

namespace nbody::ensemble {

struct SystemResult {
  int outcome = 0;
  double time = 0, stop_time = 0;
  std::int64_t steps = 0;
  double de = 0, dl = 0;  // |dE/E0|, |dL/L0| (absolute where E0 or L0 is 0)
  int pair_i = -1, pair_j = -1;  // the most bound pair
  double a = 0, e = 0;           // its relative orbit (a < 0: unbound)
};

// The results of every system (the store's bodies current on the host).
std::vector<SystemResult> system_results(EnsembleStore& s, double eps2);

// "system,outcome,stop_time,time,steps,dE_rel,dL_rel,pair_i,pair_j,a,e" and a row per system.
std::string results_csv(const std::vector<SystemResult>& r);
// Every body's final state: "system,body,m,x,y,z,vx,vy,vz".
std::string final_states_csv(const EnsembleStore& s);

// results.h5: /systems/<column> and /bodies/<column>, /bodies/offset; `false` (nothing written)
// where the build has no HDF5.
bool write_results_hdf5(const std::filesystem::path& path, const EnsembleStore& s, const std::vector<SystemResult>& r);
bool results_hdf5_available();

}  // namespace nbody::ensemble
