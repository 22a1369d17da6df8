// The PIC step on a CUDA device (float64 arithmetic; the particles stored in float64 or float32,
// pic/physics/particle_precision.hpp): PicGpu's construction (the device memory checked,
// the state uploaded), the step on one GPU and on a block among several, and the state brought
// back. The parts it drives are in engine.hpp, each in its own file with its kernels; the physics
// is the host's (particle_step.hpp and field_stencils.hpp are shared __host__ __device__ code).
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "nbody/error.hpp"
#include "particles/memory.hpp"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/engine.hpp"
#include "pic/cuda/pic_gpu.hpp"

namespace nbody::pic {

bool pic_gpu_available(std::string* why) { return nbody::cuda::query_device(0, nullptr, why); }

int pic_gpu_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // (no driver or no device: none)
    return 0;
  }
  return n;
}

namespace {

PicGpuOptions options_of(DepositMode mode, int device) {
  PicGpuOptions o;
  o.deposit = mode == DepositMode::deterministic ? DepositKernel::deterministic : DepositKernel::atomic;
  o.device = device;
  return o;
}

// A block's options checked against the simulation it is built from.
void check_block(const PicGpu::Impl& m, const PicSimulation& from) {
  const GpuSlabOptions& so = m.so;
  if ((so.cut_lo || so.cut_hi || so.cut_y_lo || so.cut_y_hi) && !so.exchange)
    throw_runtime_error("pic: a block with a cut side needs an exchange");
  if (so.guards == GuardExchange::automatic)
    throw_runtime_error("pic: a block's guard exchange \"auto\" must be resolved first (resolve_guard_exchange)");
  if (so.ids.size() != from.species().size()) throw_runtime_error("pic: the slab's particle ids do not match its species");
  for (std::size_t k = 0; k < so.ids.size(); ++k)
    if (so.ids[k].size() != from.species()[k].size())
      throw_runtime_error("pic: the slab's particle ids do not match the particles of " + from.species()[k].name);
  if (m.g.nx < 2 * kGuard) throw_input_error("pic: a GPU slab needs at least " + std::to_string(2 * kGuard) + " cell columns");
  if (so.ranks_y > 1 && m.g.ny < 2 * kGuard)
    throw_input_error("pic: a GPU block needs at least " + std::to_string(2 * kGuard) + " cell rows");
  if (so.ranks_x * so.ranks_y != so.ranks || so.bx + so.by * so.ranks_x != so.rank)
    throw_runtime_error("pic: the block shape does not match the ranks");
  if (int(so.starts.size()) != so.ranks_x + 1 || so.starts.front() != 0 || so.starts.back() != so.global.nx)
    throw_runtime_error("pic: the slab starts do not match the ranks and the grid");
  if (int(so.rows.size()) != so.ranks_y + 1 || so.rows.front() != 0 || so.rows.back() != so.global.ny)
    throw_runtime_error("pic: the block rows do not match the ranks and the grid");
}

// Everything the object will allocate, checked before the first allocation: one clear error for
// a grid or a plasma that does not fit on the device.
void check_memory(const PicGpu::Impl& m, const PicSimulation& from) {
  PicGpuFootprint f;
  f.geom = m.g;
  f.shape = m.s.shape;
  f.pml = from.solver().pml().cells > 0;
  for (const Species& s : from.species()) f.particles += s.size(), f.most = std::max(f.most, s.size());
  f.species = from.species().size();
  f.slab = m.slab;
  f.ranks = m.slab ? m.so.ranks : 1;
  f.precision = m.opt.particle_precision;
  const bool deterministic = m.opt.deposit == DepositKernel::deterministic;
  require_memory(Location::cuda(m.opt.device), pic_gpu_device_bytes(f, m.opt.deposit),
                 "pic: " + std::to_string(m.g.nx) + " x " + std::to_string(m.g.ny) + " cells and " +
                     std::to_string(f.particles) + " particles" + (deterministic ? " (deterministic deposition)" : ""));
}

}  // namespace

std::size_t pic_gpu_device_bytes(const PicGpuFootprint& f, DepositKernel deposit) {
  const GridGeometry& g = f.geom;
  const DepositOps& ops = deposit_ops(deposit);
  const std::size_t slot = particle_slot_bytes(f.precision);
  std::size_t bytes = std::size_t(kComponents) * g.size() * sizeof(double) + f.particles * slot;
  if (f.pml) bytes += std::size_t(kPsiCount) * g.size() * sizeof(double);
  const std::size_t M = f.shape == ShapeOrder::tsc ? 6 : 4;  // pic/domain.hpp's deposit_classes
  DepositSizes z;
  z.points = g.size(), z.most = f.most, z.species = f.species;
  z.tiles = ParticleStore::tile_count(g.nx, g.ny);
  z.K = stencil_points(f.shape), z.M = M, z.blocks = f.slab;
  bytes += ops.bytes(z);
  // The diagnostics: one GPU's Gauss reference (set_gauss_reference), a block's flux rows, the
  // reductions' partials and the Poynting track (diag/reduce.cuh: well under 64 KiB).
  if (!f.slab) bytes += g.size() * sizeof(double);
  bytes += std::size_t(g.ny) * sizeof(double) + 65536;
  // The sorts (the sorted kernels, the deterministic kernel's contributions, a block's
  // migration): CUB's radix-sort scratch, at most the keys and orders again beside a fixed part
  // (measured by gpu.pic.Gpu.PlannedDeviceBytes…: 62 KB at 10^4 particles; 1 MiB kept).
  if (deposit_kernel_info(deposit).sorted() || deposit == DepositKernel::deterministic || f.slab)
    bytes += f.most * 2 * sizeof(unsigned) + (std::size_t(1) << 20);
  if (f.slab) {
    // The slots' room for arrivals and their ids, and the per-slot work buffers of ensure_work
    // (which the sorts by cell use too): 4 unsigned keys and orders, 2 offsets, a double and a
    // 64-bit id. (The migration's records buffer grows with the leavers, 72 bytes
    // each: a slab's boundary cells at most.)
    const bool room = f.ranks > 1;
    const std::size_t slots = f.particles + (room ? f.particles / 8 + 1024 * f.species : 0);
    const std::size_t work = f.most + (room ? f.most / 8 + 1024 : 0);
    // (and the emptied slots' lists of the kernels that note them, an eighth of the slots)
    if (room && ops.notes_emptied) bytes += (slots / 8 + 1024 * f.species) * sizeof(unsigned);
    bytes += (slots - f.particles) * slot + slots * sizeof(std::uint64_t) +
             work * (4 * sizeof(unsigned) + 2 + sizeof(double) + sizeof(std::uint64_t));
    // the guard staging (room for the deterministic kernel's class arrays, 3 M^2)
    bytes += 3 * M * M * std::size_t(std::max(g.rows(), g.stride())) * kGuard * sizeof(double);
  }
  return bytes;
}

PicGpu::Impl::~Impl() {
  for (cudaEvent_t e : {ev0, ev1, ev_start, ev_end})
    if (e) cudaEventDestroy(e);
}

PicSettings PicGpu::Impl::push_settings() const {
  PicSettings p = s;
  if (slab) p.geom = so.global;
  return p;
}

void PicGpu::Impl::push(std::size_t k) {
  if (particles.sp[k].n == 0) return;
  PushParams pp = make_push_params(push_settings(), particles.meta[k], step);
  if (particles.sp[k].cell) pp.float32_store = true, pp.store_cells = particles.sp[k].cc;
  const FieldViews v = fields.particle_views();
  if (s.deposit) deposit->launch(k, pp, v);
  else push_without_deposit(*this, k, pp, v);
}

void PicGpu::Impl::step_one_gpu() {
  if (timing) NBODY_CUDA_CHECK(cudaEventRecord(ev_start));
  for (int c = kJx; c <= kJz; ++c) NBODY_CUDA_CHECK(cudaMemset(fields.f[c], 0, g.size() * sizeof(double)));
  deposit->prepare();
  if (timing) NBODY_CUDA_CHECK(cudaEventRecord(ev0));
  for (std::size_t k = 0; k < particles.sp.size(); ++k)
    if (!particles.meta[k].immobile) push(k);
  deposit->finish();
  if (timing) {
    NBODY_CUDA_CHECK(cudaEventRecord(ev1));
    NBODY_CUDA_CHECK(cudaEventSynchronize(ev1));
    float ms = 0;
    NBODY_CUDA_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
    particle_seconds += 1e-3 * double(ms);
    last.particles = 1e-3 * double(ms);
  }
  if (s.solve_fields) {
    const double t = s.t0 + double(step) * s.dt;
    fields.fold_currents();
    fields.advance_b(0.5 * s.dt, false);
    fields.advance_e(s.dt, t);
    fields.advance_b(0.5 * s.dt, true);
  }
  if (diag.tracking) diag.track_step();
  if (timing) {
    NBODY_CUDA_CHECK(cudaEventRecord(ev_end));
    NBODY_CUDA_CHECK(cudaEventSynchronize(ev_end));
    float ms = 0;
    NBODY_CUDA_CHECK(cudaEventElapsedTime(&ms, ev_start, ev_end));
    last.step = 1e-3 * double(ms);
  }
  ++step;
}

void PicGpu::Impl::step_block() {
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());
  const auto t0 = clock::now();
  exchange.comm_now = 0;
  for (int c = kJx; c <= kJz; ++c) NBODY_CUDA_CHECK(cudaMemset(fields.f[c], 0, g.size() * sizeof(double)));
  // (the warp kernel's sorts by cell: counted with the particles, as on one GPU)
  deposit->prepare();
  migration.prepare_lists();
  for (std::size_t k = 0; k < particles.sp.size(); ++k)
    if (!particles.meta[k].immobile) push(k);
  deposit->finish();
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());
  const auto t1 = clock::now();
  deposit->fold_block_sources();
  if (s.solve_fields) {
    const double t = s.t0 + double(step) * s.dt;
    fields.advance_b(0.5 * s.dt, false);
    fields.advance_e(s.dt, t);
    fields.advance_b(0.5 * s.dt, true);
  }
  // (the Poynting fluxes of a block run: flux_rows, summed by the caller)
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());
  const auto t2 = clock::now();
  const double comm_fields = exchange.comm_now;
  exchange.comm_now = 0;
  // (one rank: nothing leaves; the absorbed particles' slots stay empty, which changes no
  // order: the live particles' slots are in id order either way)
  if (so.ranks > 1) migration.migrate();
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());
  const auto t3 = clock::now();
  const double comm = exchange.comm_now;
  last.particles = secs(t0, t1);
  last.fields = std::max(0.0, secs(t1, t2) - comm_fields);
  last.comm = comm_fields + comm;
  last.sort = std::max(0.0, secs(t2, t3) - comm);
  last.step = secs(t0, t3);
  total.particles += last.particles, total.fields += last.fields, total.comm += last.comm, total.sort += last.sort;
  total.step += last.step;
  particle_seconds += last.particles;
  ++step;
}

PicGpu::PicGpu(const PicSimulation& from, DepositMode mode, int device) : PicGpu(from, options_of(mode, device)) {}

PicGpu::PicGpu(const PicSimulation& from, PicGpuOptions options) : impl_(std::make_unique<Impl>()) {
  std::string why;
  if (!pic_gpu_available(&why)) throw_input_error("pic: no usable CUDA device (" + why + ")");
  NBODY_CUDA_CHECK(cudaSetDevice(options.device));
  Impl& m = *impl_;
  // (a block's particle ids, 8 bytes a particle, moved into m.so once, never copied)
  if (options.slab.enabled) m.so = std::move(options.slab);
  m.opt = options;
  m.s = from.settings();
  m.g = m.s.geom;
  m.step = from.step_count();
  m.slab = options.slab.enabled;
  double tile_y0 = m.g.y0;
  if (m.slab) {
    if (!deposit_kernel_info(options.deposit).over_blocks())
      throw_input_error("pic: over slabs on GPUs solver.deposit must be " + deposit_kernels_over_blocks());
    if (m.so.rows.empty()) m.so.rows = {0, m.so.global.ny};
    check_block(m, from);
    m.class_m = m.s.shape == ShapeOrder::tsc ? 6 : 4;  // pic/domain.hpp's deposit_classes
    m.classes = m.class_m * m.class_m;
    // (the sort by cell of the warp kernel: the block's cells)
    tile_y0 = m.so.global.y0 + m.so.j_offset * m.so.global.dy;
  }
  m.particles.setup_tiles(m.g, tile_y0);
  if (m.g.size() >= std::size_t(0xffffffffu)) throw_input_error("pic: the grid is too large for the GPU path's 32-bit cell keys");
  if (options.float32_currents && options.particle_precision != ParticlePrecision::float32)
    throw_input_error("pic: float32 currents need the float32 particle store (PicGpuOptions::particle_precision)");
  if (options.particle_precision == ParticlePrecision::float32) {
    // (the store's cells: a row and a column of the whole grid in 32 bits; decode_axis is exact below 2^29 cells a side)
    const GridGeometry gg = m.push_settings().geom;
    if (!cells_fit_32_bits(gg.nx, gg.ny) || gg.nx >= (1 << 29) || gg.ny >= (1 << 29))
      throw_input_error("pic: the grid of " + std::to_string(gg.nx) + " x " + std::to_string(gg.ny) +
                        " cells is too large for solver.particle_precision = \"float32\" (its columns' and rows' "
                        "bits must fit 32 bits together)");
  }
  const DepositOps& ops = deposit_ops(options.deposit);
  check_memory(m, from);
  m.fields.upload(from);
  m.diag.setup();
  m.particles.upload(from, m.so.ids);
  m.deposit = ops.make(m);
  if (m.slab) {
    m.so.ids.clear();
    m.exchange.setup(std::max(3 * m.classes, 6));
    m.particles.ensure_work(std::max<std::size_t>(m.particles.most_cap(), 1));
    m.migration.nsel = m.alloc<int>(2);
  }
}

PicGpu::~PicGpu() = default;

void PicGpu::step() {
  Impl& m = *impl_;
  if (m.slab) m.step_block();
  else m.step_one_gpu();
}

void PicGpu::copy_to(PicSimulation& to) const {
  const Impl& m = *impl_;
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());
  m.fields.copy_to(to);
  m.particles.copy_to(to);
  to.set_time(m.s.t0 + double(m.step) * m.s.dt, m.step);
}

void PicGpu::copy_fields_to(PicSimulation& to) const {
  const Impl& m = *impl_;
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());
  m.fields.copy_to(to);
  to.set_time(m.s.t0 + double(m.step) * m.s.dt, m.step);
}

void PicGpu::enable_timing(bool on) {
  Impl& m = *impl_;
  if (on && !m.ev0) {
    for (cudaEvent_t* e : {&m.ev0, &m.ev1, &m.ev_start, &m.ev_end}) NBODY_CUDA_CHECK(cudaEventCreate(e));
  }
  m.timing = on;
}

PicGpu::StepTimes PicGpu::last_step_times() const { return impl_->last; }
PicGpu::StepTimes PicGpu::total_times() const { return impl_->total; }
std::int64_t PicGpu::step_count() const { return impl_->step; }
double PicGpu::particle_kernel_seconds() const { return impl_->particle_seconds; }
std::size_t PicGpu::device_bytes() const { return impl_->mem.bytes; }

}  // namespace nbody::pic
