#include "pic/driver/engine.hpp"

#include <chrono>
#include <utility>

#include "nbody/error.hpp"
#include "pic/cuda/gpu_slabs.hpp"
#include "pic/parallel/domain.hpp"

namespace nbody::pic {
namespace {

std::size_t particles_of(const PicSimulation& sim, bool mobile_only) {
  std::size_t n = 0;
  for (const Species& s : sim.species())
    if (!mobile_only || !s.immobile) n += s.size();
  return n;
}

// Ranks other than 0 keep only their block's particles, held by the engine: the copy they
// were built from is emptied (rank 0's stays, the host copy the outputs gather into).
void drop_host_particles(PicSimulation& sim, const comm::Communicator& comm) {
  if (comm.rank() == 0) return;
  for (Species& s : sim.species()) {
    s.resize(0);
    for (auto* v : {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w}) v->shrink_to_fit();
  }
}

PicGpuOptions gpu_options(const PicConfig& c, const comm::Communicator& comm) {
  PicGpuOptions o;
  o.deposit = deposit_kernel(c.deposit);
  o.sort_every = c.sort_every;
  o.empty_ratio = c.empty_ratio;
  o.particle_precision = c.particle_precision;
  o.slab.guards = comm.size() > 1 ? c.exchange : GuardExchange::host;  // ("auto" resolved by DomainPicGpu)
  return o;
}

// The float64 reference on one process: `sim` itself, the fluxes from its fields after each step.
class CpuEngine final : public PicEngine {
 public:
  CpuEngine(PicSimulation& sim, const PoyntingPlanes& p) : sim_(sim), planes_(p) {
    track_.energy_in_left = p.energy_in, track_.energy_out_right = p.energy_out;
  }
  [[nodiscard]] const char* name() const override { return "CPU"; }
  [[nodiscard]] bool on_gpu() const override { return false; }
  void step() override {
    const auto t0 = std::chrono::steady_clock::now();
    sim_.step();
    track_.flux_left = sim_.poynting_flux_x(planes_.i_left);
    track_.flux_right = sim_.poynting_flux_x(planes_.i_right);
    track_.energy_in_left += track_.flux_left * sim_.settings().dt;
    track_.energy_out_right += track_.flux_right * sim_.settings().dt;
    times_.step += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  [[nodiscard]] std::int64_t step_count() const override { return sim_.step_count(); }
  void to_host(PicSimulation& host) override {
    if (&host != &sim_) throw_runtime_error("pic: the CPU engine steps its host state itself");
  }
  void fields_to_host(PicSimulation& host) override { to_host(host); }
  [[nodiscard]] PoyntingTrack poynting() override { return track_; }
  [[nodiscard]] std::size_t local_particles(bool mobile_only) const override { return particles_of(sim_, mobile_only); }
  [[nodiscard]] PicGpu::StepTimes times() const override { return times_; }

 private:
  PicSimulation& sim_;
  PoyntingPlanes planes_;
  PoyntingTrack track_;
  PicGpu::StepTimes times_;
};

// The CPU slabs or blocks (pic/parallel/domain.hpp): deterministic on any number of ranks.
class CpuSlabsEngine final : public PicEngine {
 public:
  // Without planes no flux is tracked (the benchmark's steps).
  CpuSlabsEngine(const PicSimulation& sim, comm::Communicator& comm, int ranks_y, std::optional<PoyntingPlanes> p)
      : dom_(sim, comm, ranks_y), planes_(p.value_or(PoyntingPlanes{})), tracking_(p.has_value()), dt_(sim.settings().dt) {
    track_.energy_in_left = planes_.energy_in, track_.energy_out_right = planes_.energy_out;
  }
  [[nodiscard]] const char* name() const override { return "CPU slabs"; }
  [[nodiscard]] bool on_gpu() const override { return false; }
  void step() override {
    dom_.step();
    if (!tracking_) return;
    // (collective: computed by the rank owning the plane, on every rank)
    track_.flux_left = dom_.poynting_flux_x(planes_.i_left);
    track_.flux_right = dom_.poynting_flux_x(planes_.i_right);
    track_.energy_in_left += track_.flux_left * dt_;
    track_.energy_out_right += track_.flux_right * dt_;
  }
  [[nodiscard]] std::int64_t step_count() const override { return dom_.step_count(); }
  void to_host(PicSimulation& host) override { dom_.gather(host, 0); }
  void fields_to_host(PicSimulation& host) override { dom_.gather_fields(host, 0); }
  [[nodiscard]] PoyntingTrack poynting() override { return track_; }
  bool balance(const BalanceSettings& b) override { return dom_.balance(b); }
  [[nodiscard]] int rebalances() const override { return dom_.rebalances(); }
  [[nodiscard]] std::vector<int> slab_starts() const override { return dom_.layout().starts; }
  [[nodiscard]] std::size_t local_particles(bool mobile_only) const override { return dom_.local_particles(mobile_only); }
  [[nodiscard]] PicGpu::StepTimes times() const override {
    const DomainPic::PhaseTimes& t = dom_.total_times();
    PicGpu::StepTimes s;
    s.particles = t.particles, s.fields = t.fields, s.comm = t.comm, s.sort = t.migration, s.step = t.step;
    return s;
  }

 private:
  DomainPic dom_;
  PoyntingPlanes planes_;
  bool tracking_;
  double dt_;
  PoyntingTrack track_;
};

// One GPU: the state stays on the device; the host copy is refreshed only by to_host.
class GpuEngine final : public PicEngine {
 public:
  GpuEngine(const PicConfig& c, const PicSimulation& sim, const comm::Communicator& comm, const PoyntingPlanes& p,
            const std::vector<double>& gauss_reference)
      : gpu_(sim, gpu_options(c, comm)), device_diagnostics_(!c.deterministic) {
    gpu_.enable_timing(true);
    gpu_.track_poynting(p.i_left, p.i_right, p.energy_in, p.energy_out);
    if (device_diagnostics_) gpu_.set_gauss_reference(gauss_reference);
    mobile_ = particles_of(sim, true), all_ = particles_of(sim, false);
  }
  [[nodiscard]] const char* name() const override { return "GPU"; }
  [[nodiscard]] bool on_gpu() const override { return true; }
  void step() override { gpu_.step(); }
  [[nodiscard]] std::int64_t step_count() const override { return gpu_.step_count(); }
  void to_host(PicSimulation& host) override {
    gpu_.copy_to(host);
    mobile_ = particles_of(host, true), all_ = particles_of(host, false);
  }
  void fields_to_host(PicSimulation& host) override { gpu_.copy_fields_to(host); }
  [[nodiscard]] PoyntingTrack poynting() override { return gpu_.poynting(); }
  [[nodiscard]] std::optional<DeviceDiagnostics> device_diagnostics() override {
    if (!device_diagnostics_) return std::nullopt;
    return gpu_.diagnostics();
  }
  [[nodiscard]] std::optional<ReducedData> device_reduced() override {
    if (!device_diagnostics_) return std::nullopt;
    return gpu_.reduced();
  }
  // (as of the last host copy: counting the device's particles every step would cost a reduction)
  [[nodiscard]] std::size_t local_particles(bool mobile_only) const override { return mobile_only ? mobile_ : all_; }
  [[nodiscard]] PicGpu::StepTimes times() const override { return gpu_.total_times(); }
  [[nodiscard]] double particle_kernel_seconds() const override { return gpu_.particle_kernel_seconds(); }

 private:
  PicGpu gpu_;
  bool device_diagnostics_;
  std::size_t mobile_ = 0, all_ = 0;
};

// The GPU slabs or blocks (pic/cuda/gpu_slabs.hpp), one per rank on GPU rank % devices.
class GpuSlabsEngine final : public PicEngine {
 public:
  GpuSlabsEngine(const PicSimulation& sim, comm::Communicator& comm, const PicGpuOptions& o, int ranks_y,
                 std::optional<PoyntingPlanes> p)
      : dom_(sim, comm, o, ranks_y) {
    if (p) dom_.track_poynting(p->i_left, p->i_right, p->energy_in, p->energy_out);
  }
  [[nodiscard]] const char* name() const override { return "GPU slabs"; }
  [[nodiscard]] bool on_gpu() const override { return true; }
  void step() override { dom_.step(); }
  [[nodiscard]] std::int64_t step_count() const override { return dom_.step_count(); }
  void to_host(PicSimulation& host) override { dom_.gather(host, 0); }
  void fields_to_host(PicSimulation& host) override { dom_.gather_fields(host, 0); }
  [[nodiscard]] PoyntingTrack poynting() override { return dom_.poynting(); }
  bool balance(const BalanceSettings& b) override { return dom_.balance(b); }
  [[nodiscard]] int rebalances() const override { return dom_.rebalances(); }
  [[nodiscard]] std::vector<int> slab_starts() const override { return dom_.layout().starts; }
  [[nodiscard]] std::size_t local_particles(bool mobile_only) const override { return dom_.local_particles(mobile_only); }
  [[nodiscard]] PicGpu::StepTimes times() const override { return dom_.total_times(); }
  [[nodiscard]] double particle_kernel_seconds() const override { return dom_.total_times().particles; }
  [[nodiscard]] std::int64_t sorts() const override { return dom_.sorts(); }

 private:
  DomainPicGpu dom_;
};

}  // namespace

std::unique_ptr<PicEngine> make_pic_engine(const PicConfig& c, PicSimulation& sim, comm::Communicator& comm,
                                           const PoyntingPlanes& planes, const std::vector<double>& gauss_reference) {
  // Over several processes, or with the deterministic deposition, the grid is cut into slabs or
  // blocks (one process then has the bits of any number).
  const bool slabs = comm.size() > 1 || c.deterministic;
  if (!slabs && c.use_gpu) return std::make_unique<GpuEngine>(c, sim, comm, planes, gauss_reference);
  if (!slabs) return std::make_unique<CpuEngine>(sim, planes);
  std::optional<PicGpuOptions> gpu;
  if (c.use_gpu) gpu = gpu_options(c, comm);
  auto engine = make_pic_slab_engine(sim, comm, block_rows(c, comm.size()), gpu, planes);
  drop_host_particles(sim, comm);
  return engine;
}

std::unique_ptr<PicEngine> make_pic_slab_engine(const PicSimulation& sim, comm::Communicator& comm, int ranks_y,
                                                const std::optional<PicGpuOptions>& gpu,
                                                const std::optional<PoyntingPlanes>& planes) {
  if (gpu) return std::make_unique<GpuSlabsEngine>(sim, comm, *gpu, ranks_y, planes);
  return std::make_unique<CpuSlabsEngine>(sim, comm, ranks_y, planes);
}

}  // namespace nbody::pic
