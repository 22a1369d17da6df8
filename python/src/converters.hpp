#pragma once
// Python values to the library's and back, for every binding of the module: configuration from
// keyword arguments, particles to and from numpy, diagnostics and run results as dicts.
#include <string>
#include <vector>

#include "common.hpp"
#include "nbody/config.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/particles.hpp"
#include "nbody/run.hpp"

namespace nbody::py {

// A configuration from keyword arguments on top of `base`, each value through the schema (the
// CLI's checks and messages, naming the keyword), aliases first, then check_given. The keys given
// (an alias's keys included) are appended to *given_keys.
RunConfig config_from_kwargs(const pb::dict& kwargs, RunConfig base, std::vector<std::string>* given_keys);
// Every parameter as {key: value} (int, float or str).
pb::dict config_to_dict(const RunConfig& cfg);

// float64 copies of every field: {"x": ..., "m": ..., "id": uint64, "component": uint8,
// "component_names": [str, ...]}.
pb::dict particles_to_dict(const Particles<double>& p);
// The optional "component" (uint8 per body) and "component_names" (list of str) of a dict into
// p (of the dict's bodies), checked: every tag names a component.
void components_from_dict(Particles<double>& p, const pb::dict& d, const std::string& what);
// Particles from numpy arrays (forcecast to float64; id to uint64), checked: same lengths,
// finite values, masses > 0, unique ids. `what` names them in messages.
Particles<double> particles_from_arrays(const pb::object& m, const pb::object& x, const pb::object& y,
                                        const pb::object& z, const pb::object& vx, const pb::object& vy,
                                        const pb::object& vz, const pb::object& id, const std::string& what);

// {step, time, kinetic, potential, total, momentum, angular_momentum, com, virial_ratio} and,
// measured from `initial`, energy_error, momentum_drift, angular_momentum_drift.
pb::dict diagnostics_to_dict(const Diagnostics& d, const Diagnostics& initial);
pb::dict run_result_to_dict(const RunResult& r);

}  // namespace nbody::py
