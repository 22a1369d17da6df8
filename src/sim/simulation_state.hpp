#pragma once
// Internal: the System a running Simulation steps, for in-process clients that read and write
// its particles without a copy (the Python API's numpy views). Not part of the public API: the
// store's layout and location are the library's own.
#include "integrate/system.hpp"
#include "nbody/simulation.hpp"

namespace nbody {

// The system of `sim` when it runs in precision T (float: fp32; double: fp64 and mixed), else null.
template <class T>
[[nodiscard]] System<T>* system_of(Simulation& sim) noexcept;

extern template System<float>* system_of<float>(Simulation&) noexcept;
extern template System<double>* system_of<double>(Simulation&) noexcept;

}  // namespace nbody
