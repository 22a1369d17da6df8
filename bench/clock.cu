#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "environment.hpp"

namespace nbody::bench {
namespace {

__global__ void spin(long long cycles, long long* sink) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  if (threadIdx.x == 0 && now == 0) *sink = now;  // never true; keeps the loop
}

}  // namespace

double measure_sm_clock_mhz_cuda(int sm_count) {
  constexpr long long kCycles = 50'000'000;  // ~25 ms at 2 GHz
  nbody::cuda::DeviceBuffer<long long> sink(1);
  nbody::cuda::Stream stream;
  spin<<<sm_count, 32, 0, stream.get()>>>(kCycles / 10, sink.data());  // wake the clocks
  NBODY_CUDA_CHECK_LAUNCH();
  nbody::cuda::Event start, stop;
  start.record(stream.get());
  spin<<<sm_count, 32, 0, stream.get()>>>(kCycles, sink.data());
  NBODY_CUDA_CHECK_LAUNCH();
  stop.record(stream.get());
  return double(kCycles) / stop.seconds_since(start) / 1e6;
}

}  // namespace nbody::bench
