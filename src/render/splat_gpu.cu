#include "render/splat_gpu.hpp"

#include <vector>

#include "cuda/block_reduce.cuh"
#include "cuda/check.hpp"
#include "cuda/launch_policy.hpp"
#include "render/projection.hpp"

namespace nbody::render {
namespace {

struct Palette {
  float rgb[kComponentPaletteSize][3];
};

constexpr int kBlock = cuda::ReductionPolicy::kBlock;

template <class T>
__global__ void __launch_bounds__(kBlock)
    splat_kernel(ProjectionParams p, const T* __restrict__ x, const T* __restrict__ y, const T* __restrict__ z,
                 const T* __restrict__ m, const std::uint8_t* __restrict__ comp, Palette palette, long long n,
                 float* __restrict__ mass, float* __restrict__ rgb, double* __restrict__ block_mass,
                 unsigned long long* __restrict__ block_count) {
  __shared__ double scratch_mass[kBlock / 32];
  __shared__ unsigned long long scratch_count[kBlock / 32];
  double inside = 0;
  unsigned long long count = 0;
  for (long long k = blockIdx.x * (long long)kBlock + threadIdx.x; k < n; k += (long long)gridDim.x * kBlock) {
    int i, j;
    if (!pixel_of(p, double(x[k]), double(y[k]), double(z[k]), i, j)) continue;
    const long long at = (long long)j * p.nx + i;
    const float mk = float(m[k]);
    atomicAdd(mass + at, mk);
    if (comp != nullptr) {
      const float* c = palette.rgb[comp[k] % kComponentPaletteSize];
      atomicAdd(rgb + 3 * at, mk * c[0]);
      atomicAdd(rgb + 3 * at + 1, mk * c[1]);
      atomicAdd(rgb + 3 * at + 2, mk * c[2]);
    }
    inside += double(m[k]);
    ++count;
  }
  const double total_mass = cuda::block_reduce<kBlock, cuda::Sum>(inside, scratch_mass);
  const unsigned long long total_count = cuda::block_reduce<kBlock, cuda::Sum>(count, scratch_count);
  if (threadIdx.x == 0) block_mass[blockIdx.x] = total_mass, block_count[blockIdx.x] = total_count;
}

}  // namespace

template <class T>
DensityMap project_on_device(const DeviceBodies<T>& bodies, std::span<const std::uint8_t> components,
                             const Camera& camera, const Vec3& centre, int nx, int ny) {
  const bool with_components = !components.empty() || bodies.component != nullptr;
  DensityMap map;
  const ProjectionParams p = prepare_projection(camera, centre, nx, ny, with_components, map);
  const Location at = Location::cuda(bodies.ordinal);
  auto stream = static_cast<cudaStream_t>(bodies.stream);
  const std::size_t pixels = map.mass.size();
  const int blocks = cuda::ReductionPolicy::kBlocks;
  Array<float> image(at, pixels), rgb(at, with_components ? 3 * pixels : 0);
  Array<double> block_mass(at, static_cast<std::size_t>(blocks));
  Array<unsigned long long> block_count(at, static_cast<std::size_t>(blocks));
  Array<std::uint8_t> comp(at, components.empty() ? 0 : bodies.n);
  zero_bytes(image.data(), at, pixels * sizeof(float), bodies.stream);
  if (with_components) {
    zero_bytes(rgb.data(), at, 3 * pixels * sizeof(float), bodies.stream);
    if (!components.empty()) copy_bytes(comp.data(), at, components.data(), Location::host(), bodies.n, bodies.stream);
  }
  Palette palette{};
  for (int c = 0; c < kComponentPaletteSize; ++c) {
    const auto col = component_colour(std::uint8_t(c));
    for (int q = 0; q < 3; ++q) palette.rgb[c][q] = float(col[q] / 255.0);
  }
  {
    // The kernel runs on the store's device (the caller's current device is left as it was).
    int previous = 0;
    NBODY_CUDA_CHECK(cudaGetDevice(&previous));
    NBODY_CUDA_CHECK(cudaSetDevice(bodies.ordinal));
    splat_kernel<T><<<blocks, kBlock, 0, stream>>>(p, bodies.x, bodies.y, bodies.z, bodies.m,
                                                   components.empty() ? bodies.component : comp.data(), palette,
                                                   static_cast<long long>(bodies.n), image.data(),
                                                   with_components ? rgb.data() : nullptr, block_mass.data(),
                                                   block_count.data());
    NBODY_CUDA_CHECK_LAUNCH();
    NBODY_CUDA_CHECK(cudaSetDevice(previous));
  }
  std::vector<float> host(pixels), host_rgb(with_components ? 3 * pixels : 0);
  std::vector<double> masses(static_cast<std::size_t>(blocks));
  std::vector<unsigned long long> counts(static_cast<std::size_t>(blocks));
  copy_bytes(host.data(), Location::host(), image.data(), at, pixels * sizeof(float), bodies.stream);
  if (with_components)
    copy_bytes(host_rgb.data(), Location::host(), rgb.data(), at, 3 * pixels * sizeof(float), bodies.stream);
  copy_bytes(masses.data(), Location::host(), block_mass.data(), at, masses.size() * sizeof(double), bodies.stream);
  copy_bytes(counts.data(), Location::host(), block_count.data(), at, counts.size() * sizeof(unsigned long long),
             bodies.stream);
  for (std::size_t k = 0; k < pixels; ++k) map.mass[k] = host[k];
  for (std::size_t k = 0; k < host_rgb.size(); ++k) map.rgb_mass[k] = host_rgb[k];
  for (int b = 0; b < blocks; ++b) map.mass_inside += masses[std::size_t(b)], map.bodies_inside += counts[std::size_t(b)];
  return map;
}

template DensityMap project_on_device<float>(const DeviceBodies<float>&, std::span<const std::uint8_t>, const Camera&,
                                             const Vec3&, int, int);
template DensityMap project_on_device<double>(const DeviceBodies<double>&, std::span<const std::uint8_t>,
                                              const Camera&, const Vec3&, int, int);

}  // namespace nbody::render
