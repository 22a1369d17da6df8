#pragma once
// Configurations shared by the PIC tests over several ranks (test_pic_mpi.cpp on CPU slabs,
// test_pic_gpu_mpi.cpp on GPU slabs).

namespace nbody::pic::testcfg {

// A dense neutral target drifting at 0.6 c through a periodic box with a thin background: the
// load balance follows it.
inline constexpr const char* kMovingTarget = R"(
[grid]
nx = 64
ny = 6
dx = 0.02
dy = 0.04
[time]
steps = 60
courant = 0.9
[solver]
shape = "tsc"
[[species]]
name = "electron"
ppc = 8
density = 3.0
x_start = 0.1
x_end = 0.4
temperature_keV = 5.0
drift_ux = 0.75
[[species]]
name = "proton"
ppc = 4
density = 3.0
x_start = 0.1
x_end = 0.4
temperature_keV = 1.0
drift_ux = 0.75
[[species]]
name = "positron"
ppc = 1
density = 0.05
temperature_keV = 1.0
)";

}  // namespace nbody::pic::testcfg
