#include "pic/cuda/gpu_slabs.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "nbody/error.hpp"

namespace nbody::pic {

std::vector<std::uint64_t> arrivals_of(const std::vector<std::uint64_t>& records, std::size_t k) {
  if (records.size() % kMigrationRecord != 0) throw_runtime_error("pic: a migration message of a broken length");
  std::vector<std::size_t> mine;
  for (std::size_t r = 0; r < records.size() / kMigrationRecord; ++r)
    if (records[r * kMigrationRecord] == k) mine.push_back(r);
  std::sort(mine.begin(), mine.end(), [&](std::size_t a, std::size_t b) {
    return records[a * kMigrationRecord + 1] < records[b * kMigrationRecord + 1];
  });
  std::vector<std::uint64_t> out;
  out.reserve(mine.size() * kMigrationRecord);
  for (std::size_t r : mine) out.insert(out.end(), records.begin() + std::ptrdiff_t(r * kMigrationRecord),
                                        records.begin() + std::ptrdiff_t((r + 1) * kMigrationRecord));
  return out;
}

const char* guard_exchange_name(GuardExchange e) noexcept {
  switch (e) {
    case GuardExchange::host: return "host";
    case GuardExchange::ipc: return "ipc";
    case GuardExchange::mpi: return "mpi";
    case GuardExchange::automatic: return "auto";
  }
  return "host";
}

GuardExchange resolve_guard_exchange(GuardExchange e, comm::Communicator& comm) {
  // Settled by every rank together: a rank handing device buffers to MPI while its neighbour
  // stages through the host would wait forever, and device pointers to an MPI that does not take
  // them would crash inside it (refused here).
  if (comm.size() < 2) return e == GuardExchange::automatic ? GuardExchange::host : e;  // (no messages)
  if (e != GuardExchange::mpi && e != GuardExchange::automatic) return e;
  const comm::DeviceBufferSupport all = comm::device_buffer_support_everywhere(comm);
  if (e == GuardExchange::automatic) return all.supported ? GuardExchange::mpi : GuardExchange::host;
  if (!all.supported)
    throw_input_error("pic: parallel.exchange = \"mpi\" hands GPU buffers to MPI, but " + all.how +
                      ": use \"auto\" or \"host\" (or NBODY_MPI_CUDA_AWARE=1 where the library is CUDA-aware "
                      "without reporting it)");
  return e;
}

void SlabExchange::swap_device(int, bool, const double*, const double*, double*, double*, std::size_t) {
  throw_runtime_error("pic: this block exchange moves host buffers only (no device-buffer transport)");
}

// The messages between neighbour blocks along the block row or column (a chain, or a ring),
// every call checked by the communicator.
class DomainPicGpu::Exchange : public SlabExchange {
 public:
  Exchange(comm::Communicator& c, const SlabLayout& l) : comm_(&c), l_(l) {}
  void swap(int what, const std::vector<double>& to_left, const std::vector<double>& to_right, std::vector<double>& from_left,
            std::vector<double>& from_right) override {
    neighbours(false, to_left, to_right, from_left, from_right, 7500 + 10 * what);
  }
  void swap_y(int what, const std::vector<double>& to_down, const std::vector<double>& to_up, std::vector<double>& from_down,
              std::vector<double>& from_up) override {
    neighbours(true, to_down, to_up, from_down, from_up, 7550 + 10 * what);
  }
  // (what came from the left, then what came from the right: the order the host slabs keep)
  void migrate(const std::vector<std::uint64_t>& to_left, const std::vector<std::uint64_t>& to_right,
               std::vector<std::uint64_t>& arrived) override {
    std::vector<std::uint64_t> more;
    neighbours(false, to_left, to_right, arrived, more, 7600);
    arrived.insert(arrived.end(), more.begin(), more.end());
  }
  void migrate_y(const std::vector<std::uint64_t>& to_down, const std::vector<std::uint64_t>& to_up,
                 std::vector<std::uint64_t>& arrived) override {
    std::vector<std::uint64_t> more;
    neighbours(true, to_down, to_up, arrived, more, 7604);
    arrived.insert(arrived.end(), more.begin(), more.end());
  }
  // One value each way, posted at once (tagged as swap_device's messages).
  void notify(int what, bool along_y, bool lo, bool hi) override {
    const int tag = (along_y ? 7850 : 7800) + 10 * what;
    const int lo_rank = along_y ? l_.down : l_.left, hi_rank = along_y ? l_.up : l_.right;
    if ((lo && lo_rank < 0) || (hi && hi_rank < 0)) throw_runtime_error("pic: a signal to a side without a neighbour");
    double in[2] = {0, 0};
    const double one = 1.0;
    constexpr comm::DataType f64 = comm::DataType::f64;
    std::vector<std::unique_ptr<comm::Request>> pending;
    if (lo) pending.push_back(comm_->irecv(&in[0], 1, f64, lo_rank, tag));
    if (hi) pending.push_back(comm_->irecv(&in[1], 1, f64, hi_rank, tag + 1));
    if (hi) pending.push_back(comm_->isend(&one, 1, f64, hi_rank, tag));
    if (lo) pending.push_back(comm_->isend(&one, 1, f64, lo_rank, tag + 1));
    for (auto& r : pending) r->wait();
    if ((lo && in[0] != 1.0) || (hi && in[1] != 1.0))
      throw_runtime_error("pic: a block's direct exchange lost its neighbour's signal");
  }
  void sum(double* values, int count) override {
    const std::vector<double> all = comm_->allreduce_sum(std::span<const double>(values, std::size_t(count)));
    std::copy(all.begin(), all.end(), values);
  }
  // Device buffers to a CUDA-aware communicator: every receive and send of the step posted at
  // once (no chain order needed: nothing blocks until all four are under way), then waited for.
  // Both messages have their size known on both sides (the guard region's), so no length goes
  // first. A message towards the hi side is tagged tag, towards the lo side tag + 1: with two
  // blocks on a ring both neighbours are one rank, and the tags tell its two messages apart.
  void swap_device(int what, bool along_y, const double* to_lo, const double* to_hi, double* from_lo, double* from_hi,
                   std::size_t count) override {
    const int tag = (along_y ? 7750 : 7700) + 10 * what;
    const int lo = along_y ? l_.down : l_.left, hi = along_y ? l_.up : l_.right;
    if (((to_lo || from_lo) && lo < 0) || ((to_hi || from_hi) && hi < 0))
      throw_runtime_error("pic: a device guard message to a side without a neighbour");
    const auto n = static_cast<std::int64_t>(count);
    constexpr comm::DataType f64 = comm::DataType::f64;
    std::vector<std::unique_ptr<comm::Request>> pending;
    if (from_lo) pending.push_back(comm_->irecv(from_lo, n, f64, lo, tag));
    if (from_hi) pending.push_back(comm_->irecv(from_hi, n, f64, hi, tag + 1));
    if (to_hi) pending.push_back(comm_->isend(to_hi, n, f64, hi, tag));
    if (to_lo) pending.push_back(comm_->isend(to_lo, n, f64, lo, tag + 1));
    for (auto& r : pending) r->wait();  // (on an error the others' destructors wait for them)
  }

 private:
  // `to_lo` to the neighbour on the lo side (along x the left one, along y the one below) and
  // `to_hi` to the hi side's, what they sent into from_lo / from_hi (a side without a neighbour
  // sends and gets nothing; an empty message still goes to one that is there). Every receive and
  // send posted at once, the lengths first, then the data: a message towards the hi side is
  // tagged tag (its length) and tag + 2, towards the lo side tag + 1 and tag + 3 (with two blocks
  // on a ring both neighbours are one rank, and the tags tell its messages apart).
  template <class T>
  void neighbours(bool along_y, const std::vector<T>& to_lo, const std::vector<T>& to_hi, std::vector<T>& from_lo,
                  std::vector<T>& from_hi, int tag) {
    const int lo = along_y ? l_.down : l_.left, hi = along_y ? l_.up : l_.right;
    constexpr comm::DataType type = std::is_same_v<T, double> ? comm::DataType::f64 : comm::DataType::u64;
    constexpr comm::DataType i64 = comm::DataType::i64;
    const std::int64_t out_len[2] = {std::int64_t(to_lo.size()), std::int64_t(to_hi.size())};
    std::int64_t in_len[2] = {0, 0};
    std::vector<std::unique_ptr<comm::Request>> pending;
    auto wait_all = [&] {
      for (auto& r : pending) r->wait();  // (on an error the others' destructors wait for them)
      pending.clear();
    };
    if (lo >= 0) pending.push_back(comm_->irecv(&in_len[0], 1, i64, lo, tag));
    if (hi >= 0) pending.push_back(comm_->irecv(&in_len[1], 1, i64, hi, tag + 1));
    if (hi >= 0) pending.push_back(comm_->isend(&out_len[1], 1, i64, hi, tag));
    if (lo >= 0) pending.push_back(comm_->isend(&out_len[0], 1, i64, lo, tag + 1));
    wait_all();
    for (std::int64_t n : in_len)
      if (n < 0 || std::uint64_t(n) > std::uint64_t(1) << 40)
        throw_runtime_error("pic: a neighbour block's message announced " + std::to_string(n) + " values");
    from_lo.assign(std::size_t(in_len[0]), T{});
    from_hi.assign(std::size_t(in_len[1]), T{});
    if (in_len[0] > 0) pending.push_back(comm_->irecv(from_lo.data(), in_len[0], type, lo, tag + 2));
    if (in_len[1] > 0) pending.push_back(comm_->irecv(from_hi.data(), in_len[1], type, hi, tag + 3));
    if (hi >= 0 && out_len[1] > 0) pending.push_back(comm_->isend(to_hi.data(), out_len[1], type, hi, tag + 2));
    if (lo >= 0 && out_len[0] > 0) pending.push_back(comm_->isend(to_lo.data(), out_len[0], type, lo, tag + 3));
    wait_all();
  }
  comm::Communicator* comm_;
  SlabLayout l_;
};

DomainPicGpu::DomainPicGpu(const PicSimulation& global, comm::Communicator& comm, const PicGpuOptions& options,
                           int ranks_y)
    : comm_(&comm), global_settings_(global.settings()), options_(options) {
  if (!deposit_kernel_info(options.deposit).over_blocks())
    throw_input_error("pic: over slabs on GPUs solver.deposit must be " + deposit_kernels_over_blocks());
  // The guard messages' way, settled once for the run by every rank together.
  options_.slab.guards = resolve_guard_exchange(options_.slab.guards, comm);
  host_ = std::make_unique<DomainPic>(global, comm, ranks_y);  // the block (and the check of its shape)
  for (const Species& s : host_->species()) mobile_.push_back(!s.immobile);
  const int devices = pic_gpu_device_count();
  if (devices < 1) throw_input_error("pic: no usable CUDA device for the GPU slabs");
  device_ = host_->layout().rank % devices;
  build_device();
}

void DomainPicGpu::build_device() {
  const SlabLayout& l = host_->layout();
  const GridGeometry& gg = global_settings_.geom;
  PicSettings ls = global_settings_;
  ls.geom.nx = l.i1 - l.i0;
  ls.geom.ny = l.j1 - l.j0;
  ls.geom.x0 = gg.x0 + l.i0 * gg.dx;  // (y0 stays the whole grid's: the rows are offset by j_offset)
  local_ = std::make_unique<PicSimulation>(ls);
  // The slab's particles and ids move to the upload (the host copy keeps its species without
  // particles: gather brings them back).
  std::vector<Species> species;
  std::vector<std::vector<std::uint64_t>> ids;
  host_->take_particles(species, ids);
  for (Species& s : species) local_->add_species(std::move(s));
  for (int c = 0; c < kComponents; ++c) local_->fields().data[c] = host_->fields().data[c];
  for (int c = 0; c < kPsiCount; ++c) local_->fields().psi[c] = host_->fields().psi[c];
  local_->set_time(host_->time(), host_->step_count());
  exchange_ = std::make_unique<Exchange>(*comm_, l);
  PicGpuOptions o = options_;
  GpuSlabOptions& so = o.slab;
  so.enabled = true;
  so.global = gg;
  so.i_offset = l.i0, so.j_offset = l.j0;
  so.rank = l.rank, so.ranks = l.size, so.left = l.left, so.right = l.right, so.down = l.down, so.up = l.up;
  so.ranks_x = l.ranks_x, so.ranks_y = l.ranks_y, so.bx = l.bx, so.by = l.by;
  so.cut_lo = l.left >= 0, so.cut_hi = l.right >= 0;
  so.cut_y_lo = l.down >= 0, so.cut_y_hi = l.up >= 0;
  so.exchange = exchange_.get();
  so.ids = std::move(ids);
  so.starts = l.starts;
  so.rows = l.ranks_y > 1 ? l.rows : std::vector<int>{0, gg.ny};
  o.device = device_;
  gpu_ = std::make_unique<PicGpu>(*local_, std::move(o));
  // The particles live on the device now: the host copies are dropped (gather brings them back).
  (void)take_particles(local_->species());
}

void DomainPicGpu::state_to_host() {
  // (room for every slot, so that copy_to's appends never grow the arrays: the live particles
  // are at most that many)
  const std::vector<std::size_t> slots = gpu_->slot_counts();
  for (std::size_t k = 0; k < slots.size() && k < local_->species().size(); ++k) local_->species()[k].reserve(slots[k]);
  gpu_->copy_to(*local_);
  host_->set_state(local_->fields(), take_particles(local_->species()), gpu_->ids(), gpu_->step_count(),
                   local_->time());
}

bool DomainPicGpu::balance(const BalanceSettings& b) {
  if (host_->layout().size < 2) return false;
  const std::vector<std::uint64_t> counts = gpu_->column_counts();
  std::vector<double> cost(counts.size());
  const SlabLayout& l = host_->layout();
  for (std::size_t i = 0; i < counts.size(); ++i) cost[i] = double(counts[i]) + b.cell_cost * double(l.j1 - l.j0);
  const std::vector<int> starts = host_->plan_balance(cost, b);
  if (starts.empty()) return false;
  if (tracking_) track_ = poynting();  // (collective: every rank holds the integrals so far)
  state_to_host();
  const PicGpu::StepTimes t = gpu_->total_times();
  times_before_.particles += t.particles, times_before_.fields += t.fields, times_before_.comm += t.comm;
  times_before_.sort += t.sort, times_before_.step += t.step;
  sorts_before_ += gpu_->sorts();
  release_device();  // (its device memory freed before the new slab's is taken)
  local_.reset();
  host_->redistribute(starts);
  build_device();  // (the Poynting integrals stay in track_: the planes' owners follow the new starts)
  return true;
}

PicGpu::StepTimes DomainPicGpu::total_times() const {
  PicGpu::StepTimes t = gpu_->total_times();
  t.particles += times_before_.particles, t.fields += times_before_.fields, t.comm += times_before_.comm;
  t.sort += times_before_.sort, t.step += times_before_.step;
  return t;
}

void DomainPicGpu::release_device() {
  // Direct exchanges: every rank unmaps its neighbours' buffers before any rank frees its own.
  if (gpu_ && options_.slab.guards == GuardExchange::ipc && host_->layout().size > 1) {
    gpu_->close_peers();
    comm_->barrier();
  }
  gpu_.reset();
}

DomainPicGpu::~DomainPicGpu() {
  // (on an error's way out no collective call: the exported buffers are left to the process's end)
  if (std::uncaught_exceptions() == 0) {
    try {
      release_device();
    } catch (...) {
    }
  }
}

void DomainPicGpu::step() {
  gpu_->step();
  if (!tracking_) return;
  // The Poynting fluxes: the device's row terms summed up the plane's block column as the CPU
  // blocks sum theirs (DomainPic::column_sum); the top block integrates them.
  const SlabLayout& l = host_->layout();
  constexpr int kTagFlux = 7810;
  double* flux[2] = {&track_.flux_left, &track_.flux_right};
  double* integral[2] = {&track_.energy_in_left, &track_.energy_out_right};
  const int planes[2] = {i_left_, i_right_};
  for (int p = 0; p < 2; ++p) {
    const double sum = host_->column_sum(
        planes[p],
        [&](double s) {
          for (double v : gpu_->flux_rows(planes[p] - l.i0)) s += v;
          return s;
        },
        kTagFlux + p);
    if (host_->plane_top_rank(planes[p]) != l.rank) continue;
    *flux[p] = sum;
    *integral[p] += sum * global_settings_.dt;
  }
}

std::size_t DomainPicGpu::local_particles(bool mobile_only) const {
  const std::vector<std::size_t> n = gpu_->slot_counts();
  std::size_t sum = 0;
  for (std::size_t k = 0; k < n.size(); ++k)
    if (!mobile_only || mobile_[k]) sum += n[k];
  return sum;
}

void DomainPicGpu::gather(PicSimulation& global, int root) {
  state_to_host();
  host_->gather(global, root);
}

void DomainPicGpu::gather_fields(PicSimulation& global, int root) {
  gpu_->copy_fields_to(*local_);
  host_->set_fields(local_->fields(), gpu_->step_count(), local_->time());
  host_->gather_fields(global, root);
}

void DomainPicGpu::track_poynting(int i_left, int i_right, double energy_in, double energy_out) {
  const GridGeometry& g = global_settings_.geom;
  if (i_left < 0 || i_right < 0 || i_left > g.nx - 2 || i_right > g.nx - 2)
    throw_input_error("pic: the Poynting planes must lie inside the grid");
  tracking_ = true;
  track_ = PoyntingTrack{};
  track_.energy_in_left = energy_in, track_.energy_out_right = energy_out;
  i_left_ = i_left, i_right_ = i_right;
}

PoyntingTrack DomainPicGpu::poynting() {
  const SlabLayout& l = host_->layout();
  if (l.size == 1) return track_;
  // (the top block of each plane's block column has its values)
  const int left = host_->plane_top_rank(i_left_), right = host_->plane_top_rank(i_right_);
  PoyntingTrack out;
  out.flux_left = comm_->broadcast_value(track_.flux_left, left);
  out.energy_in_left = comm_->broadcast_value(track_.energy_in_left, left);
  out.flux_right = comm_->broadcast_value(track_.flux_right, right);
  out.energy_out_right = comm_->broadcast_value(track_.energy_out_right, right);
  return out;
}

}  // namespace nbody::pic
