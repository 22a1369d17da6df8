#include <optional>

#include "cuda/check.hpp"
#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

class CudaContext final : public DeviceContext {
 public:
  explicit CudaContext(const cuda::DeviceInfo& info) : info_(info) {
    NBODY_CUDA_CHECK(cudaSetDevice(info.ordinal));
    stream_.emplace();
  }
  int ordinal() const override { return info_.ordinal; }
  const cuda::DeviceInfo& info() const override { return info_; }
  StreamHandle stream() const override { return stream_->get(); }
  void make_current() const override { NBODY_CUDA_CHECK(cudaSetDevice(info_.ordinal)); }
  void synchronize() override { stream_->synchronize(); }
  double measure_seconds(const std::function<void()>& work) override {
    cuda::Event start, stop;
    start.record(stream_->get());
    work();
    stop.record(stream_->get());
    return stop.seconds_since(start);
  }

 private:
  cuda::DeviceInfo info_;
  std::optional<cuda::Stream> stream_;
};

}  // namespace

std::shared_ptr<DeviceContext> DeviceContext::open(int ordinal) {
  cuda::DeviceInfo info;
  std::string why;
  if (!cuda::query_device(ordinal, &info, &why)) {
    // cudaGetDeviceCount's own words ("CUDA driver version is insufficient for CUDA runtime
    // version") are what a machine without a GPU says; they are kept as the detail.
    throw_input_error("device: cuda (--device or --backend) needs a usable NVIDIA GPU, and none was found (" + why +
                      "); use --device cpu");
  }
  return std::make_shared<CudaContext>(info);
}

}  // namespace nbody
