#include "ensemble/backend.hpp"
#include "ensemble/cuda/gpu_backend.hpp"

namespace nbody::ensemble {

std::unique_ptr<Backend> make_gpu_backend(const GpuShape& shape) { return cuda::make_backend(shape); }
bool gpu_backend_available() { return cuda::available(); }

bool gpu_shape_named(const std::string& name, GpuShape& shape) {
  if (name == "auto" || name == "group") shape = GpuShape{};
  else if (name == "warp") shape = GpuShape{0, GpuShape{}.block_bodies};
  else if (name == "block") shape = GpuShape{0, 2};
  else return false;
  return true;
}

std::string shape_name(const GpuShape& shape) {
  std::string s;
  if (shape.group_max > 0) s = "a group of lanes a system up to " + std::to_string(shape.group_max) + " bodies, ";
  if (shape.block_bodies <= 2) return s + "one block a system";
  return s + "one warp a system, one block from " + std::to_string(shape.block_bodies) + " bodies";
}

}  // namespace nbody::ensemble
