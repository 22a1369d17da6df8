#include "pic/gpu_slabs.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "nbody/error.hpp"

namespace nbody::pic {

std::vector<double> pack_guard_columns(const std::vector<const double*>& arrays, const GridGeometry& slab, int first_column) {
  const int rows = slab.rows();
  std::vector<double> out(arrays.size() * std::size_t(rows) * std::size_t(kGuard));
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    const FieldView v{const_cast<double*>(arrays[a]), slab.stride()};
    for (int j = -kGuard; j < slab.ny + kGuard; ++j)
      for (int di = 0; di < kGuard; ++di) out[guard_index(int(a), j, di, rows)] = v(first_column + di, j);
  }
  return out;
}

void unpack_guard_columns(const std::vector<double>& in, const std::vector<double*>& arrays, const GridGeometry& slab,
                          int first_column, bool add) {
  if (in.empty()) return;
  const int rows = slab.rows();
  if (in.size() != arrays.size() * std::size_t(rows) * std::size_t(kGuard))
    throw_runtime_error("pic: a guard message of " + std::to_string(in.size()) + " values, not " +
                        std::to_string(arrays.size() * std::size_t(rows) * std::size_t(kGuard)));
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    const FieldView v{arrays[a], slab.stride()};
    for (int j = -kGuard; j < slab.ny + kGuard; ++j)
      for (int di = 0; di < kGuard; ++di) {
        const double x = in[guard_index(int(a), j, di, rows)];
        if (add) v(first_column + di, j) += x;
        else v(first_column + di, j) = x;
      }
  }
}

int migration_side(int owner, const SlabLayout& l) {
  if (owner == l.rank) return 0;
  if (owner == l.right) return 1;
  if (owner == l.left) return -1;
  throw_runtime_error("pic: a particle moved from rank " + std::to_string(l.rank) + " to rank " + std::to_string(owner) +
                      ", beyond its neighbours (a particle crossed a whole slab in one step)");
}

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

// The messages between neighbour slabs: blocking sends and receives along the chain (or ring),
// its first rank sending first (DomainPic's order), every call checked by the communicator.
class DomainPicGpu::Exchange : public SlabExchange {
 public:
  Exchange(comm::Communicator& c, const SlabLayout& l) : comm_(&c), l_(l) {}
  void swap(int what, const std::vector<double>& to_left, const std::vector<double>& to_right, std::vector<double>& from_left,
            std::vector<double>& from_right) override {
    const int tag = 7500 + 10 * what;
    from_left = shift(l_.right >= 0 ? to_right : std::vector<double>{}, true, tag);
    from_right = shift(l_.left >= 0 ? to_left : std::vector<double>{}, false, tag + 2);
  }
  void migrate(const std::vector<std::uint64_t>& to_left, const std::vector<std::uint64_t>& to_right,
               std::vector<std::uint64_t>& arrived) override {
    arrived = shift(to_right, true, 7600);
    const std::vector<std::uint64_t> more = shift(to_left, false, 7602);
    arrived.insert(arrived.end(), more.begin(), more.end());
  }

 private:
  template <class T>
  std::vector<T> shift(const std::vector<T>& out, bool to_right, int tag) {
    return slab_shift(*comm_, l_, out, to_right, tag);
  }
  comm::Communicator* comm_;
  SlabLayout l_;
};

DomainPicGpu::DomainPicGpu(const PicSimulation& global, comm::Communicator& comm, const PicGpuOptions& options)
    : comm_(&comm), global_settings_(global.settings()), options_(options) {
  if (options.deposit != DepositKernel::atomic && options.deposit != DepositKernel::warp &&
      options.deposit != DepositKernel::deterministic)
    throw_input_error("pic: over slabs on GPUs solver.deposit must be \"atomic\", \"warp\" or \"deterministic\"");
  host_ = std::make_unique<DomainPic>(global, comm);  // the slab (and the check of its width)
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
  ls.geom.x0 = gg.x0 + l.i0 * gg.dx;
  local_ = std::make_unique<PicSimulation>(ls);
  for (const Species& s : host_->species()) local_->add_species(s);
  for (int c = 0; c < kComponents; ++c) local_->fields().data[c] = host_->fields().data[c];
  for (int c = 0; c < kPsiCount; ++c) local_->fields().psi[c] = host_->fields().psi[c];
  local_->set_time(host_->time(), host_->step_count());
  exchange_ = std::make_unique<Exchange>(*comm_, l);
  PicGpuOptions o = options_;
  GpuSlabOptions& so = o.slab;
  so.enabled = true;
  so.global = gg;
  so.i_offset = l.i0;
  so.rank = l.rank, so.ranks = l.size, so.left = l.left, so.right = l.right;
  so.cut_lo = l.left >= 0, so.cut_hi = l.right >= 0;
  so.single = l.size == 1;
  so.exchange = exchange_.get();
  so.ids = host_->ids();
  so.starts = l.starts;
  o.device = device_;
  gpu_ = std::make_unique<PicGpu>(*local_, o);
  // The particles live on the device now: the host copies are dropped (gather brings them back).
  std::vector<Species> none = host_->species();
  for (Species& s : none) {
    s.resize(0);
    for (auto* v : {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w}) v->shrink_to_fit();
  }
  host_->set_state(host_->fields(), none, std::vector<std::vector<std::uint64_t>>(none.size()), host_->step_count(),
                   host_->time());
  for (Species& s : local_->species()) {
    s.resize(0);
    for (auto* v : {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w}) v->shrink_to_fit();
  }
}

bool DomainPicGpu::balance(const BalanceSettings& b) {
  if (host_->layout().size < 2) return false;
  const std::vector<std::uint64_t> counts = gpu_->column_counts();
  std::vector<double> cost(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i)
    cost[i] = double(counts[i]) + b.cell_cost * double(global_settings_.geom.ny);
  const std::vector<int> starts = host_->plan_balance(cost, b);
  if (starts.empty()) return false;
  const PoyntingTrack track = tracking_ ? poynting() : PoyntingTrack{};  // (collective: every rank's)
  gpu_->copy_to(*local_);
  host_->set_state(local_->fields(), local_->species(), gpu_->ids(), gpu_->step_count(), local_->time());
  const PicGpu::StepTimes t = gpu_->total_times();
  times_before_.particles += t.particles, times_before_.fields += t.fields, times_before_.comm += t.comm;
  times_before_.sort += t.sort, times_before_.step += t.step;
  sorts_before_ += gpu_->sorts();
  gpu_.reset();  // (its device memory freed before the new slab's is taken)
  local_.reset();
  host_->redistribute(starts);
  build_device();
  if (tracking_) {
    track_poynting(i_left_, i_right_);
    gpu_->resume_poynting(track);
  }
  return true;
}

PicGpu::StepTimes DomainPicGpu::total_times() const {
  PicGpu::StepTimes t = gpu_->total_times();
  t.particles += times_before_.particles, t.fields += times_before_.fields, t.comm += times_before_.comm;
  t.sort += times_before_.sort, t.step += times_before_.step;
  return t;
}

DomainPicGpu::~DomainPicGpu() = default;

void DomainPicGpu::step() { gpu_->step(); }

std::size_t DomainPicGpu::local_particles(bool mobile_only) const {
  const std::vector<std::size_t> n = gpu_->slot_counts();
  std::size_t sum = 0;
  for (std::size_t k = 0; k < n.size(); ++k)
    if (!mobile_only || mobile_[k]) sum += n[k];
  return sum;
}

void DomainPicGpu::gather(PicSimulation& global, int root) {
  gpu_->copy_to(*local_);
  host_->set_state(local_->fields(), local_->species(), gpu_->ids(), gpu_->step_count(), local_->time());
  host_->gather(global, root);
}

void DomainPicGpu::track_poynting(int i_left, int i_right) {
  const SlabLayout& l = host_->layout();
  tracking_ = true;
  const SlabOwner own = host_->owner(l.starts);
  owner_left_ = own(own.x0 + (i_left + 0.5) * own.dx);
  owner_right_ = own(own.x0 + (i_right + 0.5) * own.dx);
  i_left_ = i_left, i_right_ = i_right;
  // (a plane of another rank: column 0 is tracked and its values are not used)
  gpu_->track_poynting(owner_left_ == l.rank ? i_left - l.i0 : 0, owner_right_ == l.rank ? i_right - l.i0 : 0);
}

PoyntingTrack DomainPicGpu::poynting() {
  PoyntingTrack t = gpu_->poynting();
  if (host_->layout().size == 1) return t;
  PoyntingTrack out;
  out.flux_left = comm_->broadcast_value(t.flux_left, owner_left_);
  out.energy_in_left = comm_->broadcast_value(t.energy_in_left, owner_left_);
  out.flux_right = comm_->broadcast_value(t.flux_right, owner_right_);
  out.energy_out_right = comm_->broadcast_value(t.energy_out_right, owner_right_);
  return out;
}

}  // namespace nbody::pic
