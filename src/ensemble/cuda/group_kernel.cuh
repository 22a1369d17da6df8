#pragma once
// The group kernel's launcher (host-callable): a group of G lanes a system (G = 4, 8, 16 or 32,
// each lane one body) for the fixed-step integrators (leapfrog, yoshida4), the state in
// registers across the interval's steps (src/ensemble/cuda/group_kernel.cu).
#include <cuda_runtime.h>

#include "ensemble/cuda/device_view.hpp"
#include "ensemble/params.hpp"

namespace nbody::ensemble::cuda {

// Whether the group kernel integrates this integrator.
inline bool group_integrator(Integrator i) { return i == Integrator::leapfrog || i == Integrator::yoshida4; }

// The systems v.work[0 .. v.count) (each of at most `group` bodies) advanced to t_target.
void launch_group_kernel(const DeviceView& v, const Params& p, double t_target, int group, cudaStream_t stream);

}  // namespace nbody::ensemble::cuda
