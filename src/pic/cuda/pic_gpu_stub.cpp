// The PIC GPU path in a build without CUDA: it says so.
#include "nbody/error.hpp"
#include "pic/cuda/pic_gpu.hpp"

namespace nbody::pic {

struct PicGpu::Impl {};

bool pic_gpu_available(std::string* why) {
  if (why) *why = "this build of nbody has no CUDA support (configure with -DNBODY_ENABLE_CUDA=ON)";
  return false;
}

PicGpu::PicGpu(const PicSimulation&, DepositMode, int) {
  throw_input_error("pic: the GPU path needs a build with CUDA (configure with -DNBODY_ENABLE_CUDA=ON)");
}
PicGpu::PicGpu(const PicSimulation& from, PicGpuOptions o) : PicGpu(from, DepositMode::atomic, o.device) {}
PicGpu::~PicGpu() = default;
int pic_gpu_device_count() { return 0; }
std::size_t pic_gpu_device_bytes(const PicGpuFootprint&, DepositKernel) { return 0; }
std::vector<std::vector<std::uint64_t>> PicGpu::ids() const { return {}; }
std::vector<std::size_t> PicGpu::slot_counts() const { return {}; }
PicGpu::StepTimes PicGpu::total_times() const { return {}; }
std::int64_t PicGpu::sorts() const { return 0; }
PicGpu::StepTimes PicGpu::last_step_times() const { return {}; }
std::size_t PicGpu::device_bytes() const { return 0; }
void PicGpu::step() {}
void PicGpu::copy_to(PicSimulation&) const {}
void PicGpu::copy_fields_to(PicSimulation&) const {}
std::int64_t PicGpu::step_count() const { return 0; }
void PicGpu::enable_timing(bool) {}
double PicGpu::particle_kernel_seconds() const { return 0; }
DeviceDiagnostics PicGpu::diagnostics() { return {}; }
ReducedData PicGpu::reduced() const { return {}; }
void PicGpu::track_poynting(int, int, double, double) {}
PoyntingTrack PicGpu::poynting() const { return {}; }
std::vector<double> PicGpu::flux_rows(int) const { return {}; }
void PicGpu::close_peers() {}
std::vector<std::uint64_t> PicGpu::column_counts() const { return {}; }
void PicGpu::set_gauss_reference(const std::vector<double>&) {}

}  // namespace nbody::pic
