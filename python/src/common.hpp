#pragma once
// What every file of the nbody._core extension shares: pybind11, and the function by which each
// file adds its part to the module, called by the entry point (module.cpp) alone. The module
// links the library (nbody_core) and reaches the particle store through nbody_internal; the
// logic stays in the library. Conversions of values are in converters.hpp.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace nbody::py {

namespace pb = pybind11;

void bind_config(pb::module_& m);         // module.cpp: the schema, units, what this build has
void bind_files(pb::module_& m);          // module.cpp: particle files and checkpoints
void bind_run_state(pb::module_& m);      // hooks.cpp: RunState, what a callback is given
void bind_engine(pb::module_& m);         // engine.cpp: Engine, one Simulation
void bind_runs(pb::module_& m);           // runs.cpp: run and resume
void bind_device_arrays(pb::module_& m);  // device_array.cpp: DeviceArray
void bind_render(pb::module_& m);         // render.cpp: encode_png (Simulation.render is Engine's)
void bind_ensembles(pb::module_& m);      // ensemble.cpp: ensemble_run, ensemble_resume

}  // namespace nbody::py
