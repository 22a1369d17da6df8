#pragma once
// The ensemble's store as the kernels see it on the device (plain data: pointers into the
// backend's buffers), shared by the warp, block and group kernels.
#include "ensemble/system_step.hpp"

namespace nbody::ensemble::cuda {

struct DeviceView {
  double *x, *y, *z, *vx, *vy, *vz, *m;
  const long long* offset;
  SystemState* state;
  double* scratch;  // kScratchArrays x bodies
  double* ias;      // IAS15's work arrays, kIas15Arrays x bodies (null for the other integrators)
  long long bodies;
  const long long* work;  // the systems to integrate
  long long count;
};

}  // namespace nbody::ensemble::cuda
