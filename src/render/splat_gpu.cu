#include "render/splat_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/block_reduce.cuh"
#include "cuda/check.hpp"
#include "cuda/launch_policy.hpp"
#include "nbody/error.hpp"
#include "render/projection.hpp"

namespace nbody::render {

// image: one float a pixel, or with components four (mass and the mass-weighted red, green,
// blue: one vector atomic a body on sm_90); colours: the shaded pixels on the device, staged:
// the same in pinned host memory (a fast copy back).
struct SplatWorkspace::Buffers {
  Location at = Location::host();
  Array<float> image, block_max;
  Array<double> block_mass;
  Array<unsigned long long> block_count;
  Array<std::uint8_t> comp, colours;
  std::uint8_t* staged = nullptr;
  std::size_t staged_bytes = 0;
  ~Buffers() {
    if (staged != nullptr) (void)cudaFreeHost(staged);  // in a destructor: nothing to report to
  }
};

SplatWorkspace::SplatWorkspace() = default;
SplatWorkspace::~SplatWorkspace() = default;

SplatWorkspace::Buffers& SplatWorkspace::buffers(Location at, std::size_t pixels, bool with_components,
                                                 std::size_t bodies_tagged) {
  constexpr std::size_t blocks = cuda::ReductionPolicy::kBlocks;
  if (!b_ || !(b_->at == at)) {
    b_ = std::make_unique<Buffers>();
    b_->at = at;
    b_->block_max = Array<float>(at, blocks);
    b_->block_mass = Array<double>(at, blocks);
    b_->block_count = Array<unsigned long long>(at, blocks);
  }
  Buffers& b = *b_;
  const std::size_t floats = (with_components ? 4 : 1) * pixels;
  if (b.image.size() < floats) b.image = Array<float>(at, floats);
  if (b.colours.size() < 3 * pixels) {
    b.colours = Array<std::uint8_t>(at, 3 * pixels);
    if (b.staged != nullptr) NBODY_CUDA_CHECK(cudaFreeHost(b.staged));
    b.staged = nullptr;
    NBODY_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&b.staged), 3 * pixels));
    b.staged_bytes = 3 * pixels;
  }
  if (b.comp.size() < bodies_tagged) b.comp = Array<std::uint8_t>(at, bodies_tagged);
  return b;
}

namespace {

struct Palette {
  float rgb[kComponentPaletteSize][3];
};

struct Table {
  std::uint8_t rgb[256][3];
};

constexpr int kBlock = cuda::ReductionPolicy::kBlock;

// Adds (m, r, g, b) to a pixel's four floats: one vector atomic where the device has it (sm_90),
// else four (each element is added atomically either way).
__device__ __forceinline__ void add_pixel4(float* pixel, float m, float r, float g, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  atomicAdd(reinterpret_cast<float4*>(pixel), make_float4(m, r, g, b));
#else
  atomicAdd(pixel, m), atomicAdd(pixel + 1, r), atomicAdd(pixel + 2, g), atomicAdd(pixel + 3, b);
#endif
}

// image: one float a pixel (comp null), or four (mass, r, g, b) with components.
template <class T>
__global__ void __launch_bounds__(kBlock)
    splat_kernel(ProjectionParams p, const T* __restrict__ x, const T* __restrict__ y, const T* __restrict__ z,
                 const T* __restrict__ m, const std::uint8_t* __restrict__ comp, Palette palette, long long n,
                 float* __restrict__ image, double* __restrict__ block_mass,
                 unsigned long long* __restrict__ block_count) {
  __shared__ double scratch_mass[kBlock / 32];
  __shared__ unsigned long long scratch_count[kBlock / 32];
  double inside = 0;
  unsigned long long count = 0;
  for (long long k = blockIdx.x * (long long)kBlock + threadIdx.x; k < n; k += (long long)gridDim.x * kBlock) {
    int i, j;
    if (comp != nullptr && !shows(p, comp[k])) continue;
    if (!pixel_of(p, double(x[k]), double(y[k]), double(z[k]), i, j)) continue;
    const long long at = (long long)j * p.nx + i;
    const float mk = float(m[k]);
    if (comp != nullptr) {
      const float* c = palette.rgb[comp[k] % kComponentPaletteSize];
      add_pixel4(image + 4 * at, mk, mk * c[0], mk * c[1], mk * c[2]);
    } else {
      atomicAdd(image + at, mk);
    }
    inside += double(m[k]);
    ++count;
  }
  const double total_mass = cuda::block_reduce<kBlock, cuda::Sum>(inside, scratch_mass);
  const unsigned long long total_count = cuda::block_reduce<kBlock, cuda::Sum>(count, scratch_count);
  if (threadIdx.x == 0) block_mass[blockIdx.x] = total_mass, block_count[blockIdx.x] = total_count;
}

// The largest pixel mass of each block's share of the image (masses are >= 0).
// (`stride` floats a pixel, the mass first).
__global__ void __launch_bounds__(kBlock) max_kernel(const float* __restrict__ mass, int stride, long long pixels,
                                                     float* __restrict__ block_max) {
  __shared__ float scratch[kBlock / 32];
  float top = 0;
  for (long long k = blockIdx.x * (long long)kBlock + threadIdx.x; k < pixels; k += (long long)gridDim.x * kBlock)
    top = fmaxf(top, mass[stride * k]);
  const float block_top = cuda::block_reduce<kBlock, cuda::Max>(top, scratch);
  if (threadIdx.x == 0) block_max[blockIdx.x] = block_top;
}

// Scale::log(lo, hi).normalize(v) with log10(hi / lo) given (render/colormap.cpp).
__device__ __forceinline__ double normalize_log(double v, double lo, double log_span) {
  if (!(v > 0) || !(log_span > 0)) return 0;
  const double t = log10(v / lo) / log_span;
  return t < 0 ? 0 : (t > 1 ? 1 : t);
}

// std::lround for x in [0, 255] (render/shade.cpp's round_byte).
__device__ __forceinline__ std::uint8_t round_byte(double x) {
  if (!(x > 0)) return 0;
  const int i = int(x);
  return std::uint8_t(x - i >= 0.5 ? i + 1 : i);
}

// render::shade on the device: one colour map's entry by floor(256 t), or with components (four
// floats a pixel) the mass-weighted hue at brightness t; t of the surface density mass / area on
// the log scale.
__global__ void __launch_bounds__(kBlock)
    shade_kernel(const float* __restrict__ image, bool components, long long pixels, double area, double lo,
                 double log_span, Table table, std::uint8_t* __restrict__ out) {
  for (long long k = blockIdx.x * (long long)kBlock + threadIdx.x; k < pixels; k += (long long)gridDim.x * kBlock) {
    std::uint8_t* o = out + 3 * k;
    if (!components) {
      const double m = image[k];
      int e = 0;
      if (m > 0) {
        const double t = normalize_log(m / area, lo, log_span);
        e = t > 0 ? (t >= 1 ? 255 : int(t * 256.0)) : 0;
      }
      o[0] = table.rgb[e][0], o[1] = table.rgb[e][1], o[2] = table.rgb[e][2];
      continue;
    }
    const float4 v = reinterpret_cast<const float4*>(image)[k];
    const double m = v.x;
    if (!(m > 0)) {
      o[0] = o[1] = o[2] = 0;  // an empty pixel is black
      continue;
    }
    const double t = normalize_log(m / area, lo, log_span);
    const float rgb[3] = {v.y, v.z, v.w};
    for (int q = 0; q < 3; ++q) {
      const double c = t * double(rgb[q]) / m;
      o[q] = round_byte(255 * (c < 0 ? 0 : (c > 1 ? 1 : c)));
    }
  }
}

Palette component_palette() {
  Palette palette{};
  for (int c = 0; c < kComponentPaletteSize; ++c) {
    const auto col = component_colour(std::uint8_t(c));
    for (int q = 0; q < 3; ++q) palette.rgb[c][q] = float(col[q] / 255.0);
  }
  return palette;
}

// The splat of the bodies into the workspace's image (zeroed first), on the store's stream;
// `comp` the device tags or null. The current device is left as it was.
template <class T>
void splat(const DeviceBodies<T>& bodies, const ProjectionParams& p, const std::uint8_t* comp,
           SplatWorkspace::Buffers& b, std::size_t pixels) {
  zero_bytes(b.image.data(), b.at, (comp != nullptr ? 4 : 1) * pixels * sizeof(float), bodies.stream);
  int previous = 0;
  NBODY_CUDA_CHECK(cudaGetDevice(&previous));
  NBODY_CUDA_CHECK(cudaSetDevice(bodies.ordinal));
  splat_kernel<T><<<cuda::ReductionPolicy::kBlocks, kBlock, 0, static_cast<cudaStream_t>(bodies.stream)>>>(
      p, bodies.x, bodies.y, bodies.z, bodies.m, comp, component_palette(), static_cast<long long>(bodies.n),
      b.image.data(), b.block_mass.data(), b.block_count.data());
  NBODY_CUDA_CHECK_LAUNCH();
  NBODY_CUDA_CHECK(cudaSetDevice(previous));
}

// The blocks' sums of the mass and count inside the view, added in block order (deterministic).
void add_inside(const SplatWorkspace::Buffers& b, StreamHandle stream, DensityMap& map) {
  constexpr std::size_t blocks = cuda::ReductionPolicy::kBlocks;
  std::vector<double> masses(blocks);
  std::vector<unsigned long long> counts(blocks);
  copy_bytes(masses.data(), Location::host(), b.block_mass.data(), b.at, blocks * sizeof(double), stream);
  copy_bytes(counts.data(), Location::host(), b.block_count.data(), b.at, blocks * sizeof(unsigned long long), stream);
  for (std::size_t k = 0; k < blocks; ++k) map.mass_inside += masses[k], map.bodies_inside += counts[k];
}

}  // namespace

template <class T>
DensityMap project_on_device(const DeviceBodies<T>& bodies, std::span<const std::uint8_t> components,
                             const Camera& camera, const Vec3& centre, int nx, int ny, SplatWorkspace& workspace) {
  const bool with_components = !components.empty() || bodies.component != nullptr;
  DensityMap map;
  const ProjectionParams p = prepare_projection(camera, centre, nx, ny, with_components, map);
  const std::size_t pixels = map.mass.size();
  SplatWorkspace::Buffers& b =
      workspace.buffers(Location::cuda(bodies.ordinal), pixels, with_components, components.empty() ? 0 : bodies.n);
  if (!components.empty())
    copy_bytes(b.comp.data(), b.at, components.data(), Location::host(), bodies.n, bodies.stream);
  splat(bodies, p, components.empty() ? bodies.component : b.comp.data(), b, pixels);
  const std::size_t stride = with_components ? 4 : 1;
  std::vector<float> host(stride * pixels);
  copy_bytes(host.data(), Location::host(), b.image.data(), b.at, host.size() * sizeof(float), bodies.stream);
  for (std::size_t k = 0; k < pixels; ++k) map.mass[k] = host[stride * k];
  if (with_components)
    for (std::size_t k = 0; k < pixels; ++k)
      for (std::size_t q = 0; q < 3; ++q) map.rgb_mass[3 * k + q] = host[4 * k + 1 + q];
  add_inside(b, bodies.stream, map);
  return map;
}

template <class T>
ShadedMap shade_on_device(const DeviceBodies<T>& bodies, const Camera& camera, const Vec3& centre, int nx, int ny,
                          const ShadeSpec& spec, SplatWorkspace& workspace) {
  if (spec.by_component && bodies.component == nullptr)
    throw_runtime_error("render: colour by component asked of bodies without component tags on the device");
  ShadedMap out;
  const ProjectionParams p = prepare_projection_geometry(camera, centre, nx, ny, out.map);
  const std::size_t pixels = std::size_t(nx) * std::size_t(ny);
  SplatWorkspace::Buffers& b = workspace.buffers(Location::cuda(bodies.ordinal), pixels, spec.by_component, 0);
  splat(bodies, p, spec.by_component ? bodies.component : nullptr, b, pixels);
  constexpr int blocks = cuda::ReductionPolicy::kBlocks;
  auto stream = static_cast<cudaStream_t>(bodies.stream);
  int previous = 0;
  NBODY_CUDA_CHECK(cudaGetDevice(&previous));
  NBODY_CUDA_CHECK(cudaSetDevice(bodies.ordinal));
  max_kernel<<<blocks, kBlock, 0, stream>>>(b.image.data(), spec.by_component ? 4 : 1, static_cast<long long>(pixels),
                                            b.block_max.data());
  NBODY_CUDA_CHECK_LAUNCH();
  std::vector<float> tops(blocks);
  copy_bytes(tops.data(), Location::host(), b.block_max.data(), b.at, tops.size() * sizeof(float), bodies.stream);
  add_inside(b, bodies.stream, out.map);
  // The scale as density_scale finds it: the largest mass over the area (division keeps the order).
  const double area = out.map.pixel_size * out.map.pixel_size;
  const float top = *std::max_element(tops.begin(), tops.end());
  const auto [lo, hi] = density_range(top > 0 ? double(top) / area : 0.0, spec.decades);
  out.lo = lo, out.hi = hi;
  out.by_component = spec.by_component;
  Table table{};
  for (int e = 0; e < 256; ++e)
    for (int q = 0; q < 3; ++q) table.rgb[e][q] = spec.colormap[std::size_t(e)][std::size_t(q)];
  shade_kernel<<<blocks, kBlock, 0, stream>>>(b.image.data(), spec.by_component, static_cast<long long>(pixels), area,
                                              lo, std::log10(hi / lo), table, b.colours.data());
  NBODY_CUDA_CHECK_LAUNCH();
  // Through the pinned staging buffer: the copy back at the link's speed.
  NBODY_CUDA_CHECK(cudaMemcpyAsync(b.staged, b.colours.data(), 3 * pixels, cudaMemcpyDeviceToHost, stream));
  NBODY_CUDA_CHECK(cudaStreamSynchronize(stream));
  NBODY_CUDA_CHECK(cudaSetDevice(previous));
  static_assert(sizeof(out.colours[0]) == 3);
  const auto* first = reinterpret_cast<const std::array<std::uint8_t, 3>*>(b.staged);
  out.colours.assign(first, first + pixels);
  return out;
}

template DensityMap project_on_device<float>(const DeviceBodies<float>&, std::span<const std::uint8_t>, const Camera&,
                                             const Vec3&, int, int, SplatWorkspace&);
template DensityMap project_on_device<double>(const DeviceBodies<double>&, std::span<const std::uint8_t>,
                                              const Camera&, const Vec3&, int, int, SplatWorkspace&);
template ShadedMap shade_on_device<float>(const DeviceBodies<float>&, const Camera&, const Vec3&, int, int,
                                          const ShadeSpec&, SplatWorkspace&);
template ShadedMap shade_on_device<double>(const DeviceBodies<double>&, const Camera&, const Vec3&, int, int,
                                           const ShadeSpec&, SplatWorkspace&);

}  // namespace nbody::render
