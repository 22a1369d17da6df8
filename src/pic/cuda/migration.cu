// A block's particle migration on the GPU path (engine.hpp's Migration): DomainPic::migrate on
// the device, and the live particles per cell column that the load balance weighs.
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "nbody/error.hpp"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/engine.hpp"
#include "pic/cuda/exchange/columns.cuh"
#include "pic/cuda/exchange/migration.cuh"

namespace nbody::pic {
namespace {

using nbody::cuda::ElementwisePolicy;

// The slots in [first, first + n) that empty (or, want = false, stay) into `out` in ascending
// order, their number into *count on the device (no wait).
void select_slots(ParticleStore& ps, std::size_t first, std::size_t n, const SlotEmpties& pred, unsigned* out,
                  int* count) {
  if (first + n > std::size_t(0x7fffffff)) throw_input_error("pic: more than 2^31 particles of a species on one slab");
  const thrust::counting_iterator<unsigned> slots(static_cast<unsigned>(first));
  std::size_t need = 0;
  NBODY_CUDA_CHECK(cub::DeviceSelect::If(nullptr, need, slots, out, count, int(n), pred));
  ps.ensure_cub(need);
  NBODY_CUDA_CHECK(cub::DeviceSelect::If(ps.cub_temp, ps.cub_bytes, slots, out, count, int(n), pred));
}

// The emptied slots' records (pack_emptied's) to the neighbours by direction (`out`: left,
// right, down, up); the absorbed particles' skipped.
void sort_records(const std::vector<std::uint64_t>& rec, std::vector<std::uint64_t>* out) {
  for (std::size_t p = 0; p < rec.size() / kDeviceRecordWords; ++p) {
    const std::uint64_t* r = &rec[p * kDeviceRecordWords];
    if (r[0] == kSlotEmpty) continue;
    const std::uint64_t move = r[0] - kSlotLeaves;
    if (r[0] < kSlotLeaves || move < std::uint64_t(BlockMove::left) || move > std::uint64_t(BlockMove::up))
      throw_runtime_error("pic: a leaving particle's record of a bad direction");
    std::vector<std::uint64_t>& o = out[move - std::uint64_t(BlockMove::left)];
    o.insert(o.end(), r + 1, r + kDeviceRecordWords);
  }
}

// The particles of species k leaving the block: their records appended to `out` by direction
// (in the order of their slots); their slots and the absorbed particles' filled from the end.
// Two waits: the number of slots that empty, and their records on the host. Returns whether
// any slot changed.
bool take_leavers(Migration& mg, std::size_t k, const SlabOwner& own, const SlabOwner& rown, const BlockNeighbours& nb,
                  std::vector<std::uint64_t>* out) {
  ParticleStore& ps = mg.m.particles;
  DeviceSpecies& s = ps.sp[k];
  const DevParticles d{s};
  const std::size_t n = d.n;
  SlotEmpties empties{d, own, rown, nb, true};
  select_slots(ps, 0, n, empties, ps.order, mg.nsel);
  int mc = 0;
  NBODY_CUDA_CHECK(cudaMemcpy(&mc, mg.nsel, sizeof mc, cudaMemcpyDeviceToHost));
  if (mc < 0 || std::size_t(mc) > n) throw_runtime_error("pic: the slot selection returned a bad count");
  const std::size_t taken = std::size_t(mc);
  if (taken == 0) return false;
  // the emptied slots' records (to the host), then the ones staying in the last `taken` into
  // them (counters[3]: counters[0] and [1] hold the step's counts for the sorting policy)
  mg.ensure_mig(taken * kDeviceRecordWords);
  NBODY_CUDA_CHECK(cudaMemsetAsync(ps.counters + 3, 0, sizeof(unsigned long long)));
  pack_emptied<<<blocks_for(taken), ElementwisePolicy::kBlock>>>(d, own, rown, nb, ps.order, taken, std::uint64_t(k),
                                                                 mg.mig, ps.counters + 3);
  NBODY_CUDA_CHECK_LAUNCH();
  SlotEmpties stays = empties;
  stays.want = false;
  select_slots(ps, n - taken, taken, stays, ps.order_sorted, mg.nsel + 1);
  fill_holes<<<blocks_for(taken), ElementwisePolicy::kBlock>>>(d, ps.order, ps.order_sorted, mg.nsel + 1);
  NBODY_CUDA_CHECK_LAUNCH();
  s.n = n - taken;
  std::vector<std::uint64_t> rec(taken * kDeviceRecordWords);
  NBODY_CUDA_CHECK(cudaMemcpy(rec.data(), mg.mig, rec.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  unsigned long long bad = 0;
  NBODY_CUDA_CHECK(cudaMemcpy(&bad, ps.counters + 3, sizeof bad, cudaMemcpyDeviceToHost));
  if (bad > 0)
    throw_runtime_error("pic: " + std::to_string(bad) + " particles of " + ps.meta[k].name + " left rank " +
                        std::to_string(mg.m.so.rank) + "'s block beyond its neighbours in one step");
  sort_records(rec, out);
  return true;
}

// Species k's `count` slots that the particle kernel noted (prepare_lists): their records into
// mig from record `at`, and the holes filled from the end, no wait (the caller copies the records).
void take_listed(Migration& mg, std::size_t k, std::size_t count, std::size_t at, const SlabOwner& own,
                 const SlabOwner& rown, const BlockNeighbours& nb) {
  ParticleStore& ps = mg.m.particles;
  DeviceSpecies& s = ps.sp[k];
  const DevParticles d{s};
  const std::size_t n = d.n;
  if (count > n) throw_runtime_error("pic: more emptied slots than slots");
  const unsigned* list = mg.lists + mg.list_at[k];
  pack_emptied<<<blocks_for(count), ElementwisePolicy::kBlock>>>(d, own, rown, nb, list, count, std::uint64_t(k),
                                                                 mg.mig + at * kDeviceRecordWords, ps.counters + 3);
  NBODY_CUDA_CHECK_LAUNCH();
  // (the holes before the last `count` into order, the particles staying in the last `count`
  // into order_sorted, the tail's flags in keys; the two counts after the species' counts)
  unsigned* split_counts = mg.list_counts + ps.sp.size();
  NBODY_CUDA_CHECK(cudaMemsetAsync(ps.keys, 0, count * sizeof(unsigned)));
  NBODY_CUDA_CHECK(cudaMemsetAsync(split_counts, 0, 2 * sizeof(unsigned)));
  split_emptied<<<blocks_for(count), ElementwisePolicy::kBlock>>>(list, count, n, ps.keys, ps.order, split_counts);
  NBODY_CUDA_CHECK_LAUNCH();
  collect_staying<<<blocks_for(count), ElementwisePolicy::kBlock>>>(ps.keys, count, n, ps.order_sorted, split_counts + 1);
  NBODY_CUDA_CHECK_LAUNCH();
  fill_holes<<<blocks_for(count), ElementwisePolicy::kBlock>>>(d, ps.order, ps.order_sorted, split_counts);
  NBODY_CUDA_CHECK_LAUNCH();
  s.n = n - count;
}

// The arrived records of species k appended (in id order). Returns whether any arrived.
bool append_arrivals(Migration& mg, std::size_t k, const std::vector<std::uint64_t>& arrived) {
  ParticleStore& ps = mg.m.particles;
  const std::vector<std::uint64_t> rec = arrivals_of(arrived, k);
  if (rec.empty()) return false;
  if (ps.meta[k].immobile) throw_runtime_error("pic: an immobile particle arrived from another block");
  const std::size_t na = rec.size() / kMigrationWords;
  ps.ensure_capacity(k, ps.sp[k].n + na);
  DeviceSpecies& s = ps.sp[k];
  // 7 arrays of na words (id, x, y, ux, uy, uz, w), one copy to the device
  std::vector<std::uint64_t> packed(7 * na);
  for (std::size_t p = 0; p < na; ++p)
    for (std::size_t q = 0; q < 7; ++q) packed[q * na + p] = rec[p * kMigrationWords + 1 + q];
  mg.ensure_mig(packed.size());
  NBODY_CUDA_CHECK(cudaMemcpy(mg.mig, packed.data(), packed.size() * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
  unpack_arrivals<<<blocks_for(na), ElementwisePolicy::kBlock>>>(DevParticles{s}, s.n, mg.mig, na);
  NBODY_CUDA_CHECK_LAUNCH();
  s.n += na;
  return true;
}

}  // namespace

Migration::~Migration() {
  for (void* p : {static_cast<void*>(mig), static_cast<void*>(nsel), static_cast<void*>(lists),
                  static_cast<void*>(list_counts)})
    if (p) cudaFree(p);
}

bool Migration::lists_on() const { return m.slab && m.so.ranks > 1 && deposit_ops(m.opt.deposit).notes_emptied; }

// Room for each mobile species' emptied slots: an eighth of its slots and 1024 (a step empties
// far fewer: the block's edge cells).
void Migration::prepare_lists() {
  const std::vector<DeviceSpecies>& sp = m.particles.sp;
  listed.assign(sp.size(), 0);
  if (!lists_on()) return;
  list_at.assign(sp.size(), 0);
  list_cap.assign(sp.size(), 0);
  std::size_t total = 0;
  for (std::size_t k = 0; k < sp.size(); ++k) {
    if (m.particles.meta[k].immobile) continue;
    list_at[k] = total;
    list_cap[k] = std::min<std::size_t>(sp[k].n / 8 + 1024, 0x7fffffff);
    total += list_cap[k];
  }
  if (total > lists_cap) {
    if (lists) NBODY_CUDA_CHECK(cudaFree(lists));
    lists = nullptr;
    lists_cap = 0;
    lists = m.alloc<unsigned>(total);
    lists_cap = total;
  }
  if (list_counts_len < sp.size() + 2) {
    if (list_counts) NBODY_CUDA_CHECK(cudaFree(list_counts));
    list_counts = nullptr;
    list_counts_len = 0;
    list_counts = m.alloc<unsigned>(sp.size() + 2);
    list_counts_len = sp.size() + 2;
  }
  NBODY_CUDA_CHECK(cudaMemsetAsync(list_counts, 0, list_counts_len * sizeof(unsigned)));
}

EmptiedSlots Migration::emptied(std::size_t k) {
  if (!lists_on() || !lists || k >= list_cap.size() || list_cap[k] == 0) return {};
  listed[k] = 1;
  return EmptiedSlots{lists + list_at[k], list_counts + k, unsigned(list_cap[k]), m.exchange.owner(),
                      m.exchange.row_owner(), m.so.bx, m.so.by};
}

void Migration::ensure_mig(std::size_t words) {
  if (words <= mig_cap) return;
  const std::size_t cap = std::max(words, mig_cap + mig_cap / 2 + 4096);
  if (mig) NBODY_CUDA_CHECK(cudaFree(mig));
  mig = nullptr;
  mig_cap = 0;
  mig = m.alloc<std::uint64_t>(cap);
  mig_cap = cap;
}

// Those whose block column changed sent along x, then those whose block row changed, with the x
// arrivals of another block row, along y (a corner crossing takes two hops); the arrivals
// appended in id order. The slots that empty are those the particle kernel noted as it moved the
// particles (EmptiedList: no pass over every slot), or for a kernel that notes none (and a list
// that overflowed) those selected from the positions. They are filled from the species' end (not
// compacted: a step moves only the leavers and as many from the end), so the slots' order
// changes: the atomic kernel adds in no fixed order anyway, the warp kernel's sorting policy
// counts the particles out of their warp's cells, and the deterministic kernel sorts the species
// by id again (DepositRun::slots_changed: its fixed order of each cell's sum; the outputs and
// checkpoints are in id order in every mode: DomainPic::gather and redistribute sort by id on
// the host).
void Migration::migrate() {
  const GpuSlabOptions& so = m.so;
  const std::vector<DeviceSpecies>& sp = m.particles.sp;
  const std::vector<Species>& meta = m.particles.meta;
  const SlabOwner own = m.exchange.owner(), rown = m.exchange.row_owner();
  const BlockNeighbours nb = block_neighbours(so.bx, so.by, so.ranks_x, so.left, so.right, so.down, so.up);
  std::vector<std::uint64_t> to[4];  // left, right, down, up
  std::vector<char> changed(sp.size(), 0);
  // The slots the particle kernels noted: their counts (one wait). A species without a list, or
  // with more than its list holds, selects them itself first.
  std::vector<unsigned> counts(sp.size(), 0);
  const bool any_listed = std::find(listed.begin(), listed.end(), char(1)) != listed.end();
  if (any_listed) NBODY_CUDA_CHECK(cudaMemcpy(counts.data(), list_counts, sp.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  auto use_list = [&](std::size_t k) { return k < listed.size() && listed[k] && counts[k] <= list_cap[k]; };
  for (std::size_t k = 0; k < sp.size(); ++k)
    if (!meta[k].immobile && sp[k].n > 0 && !use_list(k)) changed[k] = take_leavers(*this, k, own, rown, nb, to) ? 1 : 0;
  // The listed species: their records one after another in mig, the holes filled, then one
  // copy of all the records to the host (the second wait; the count gone too far the third).
  std::size_t total = 0;
  for (std::size_t k = 0; k < sp.size(); ++k)
    if (!meta[k].immobile && use_list(k)) total += counts[k];
  if (total > 0) {
    unsigned long long* counters = m.particles.counters;
    ensure_mig(total * kDeviceRecordWords);
    NBODY_CUDA_CHECK(cudaMemsetAsync(counters + 3, 0, sizeof(unsigned long long)));
    std::size_t at = 0;
    for (std::size_t k = 0; k < sp.size(); ++k) {
      if (meta[k].immobile || !use_list(k) || counts[k] == 0) continue;
      take_listed(*this, k, counts[k], at, own, rown, nb);
      at += counts[k];
      changed[k] = 1;
    }
    std::vector<std::uint64_t> rec(total * kDeviceRecordWords);
    NBODY_CUDA_CHECK(cudaMemcpy(rec.data(), mig, rec.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
    unsigned long long bad = 0;
    NBODY_CUDA_CHECK(cudaMemcpy(&bad, counters + 3, sizeof bad, cudaMemcpyDeviceToHost));
    if (bad > 0)
      throw_runtime_error("pic: " + std::to_string(bad) + " particles left rank " + std::to_string(so.rank) +
                          "'s block beyond its neighbours in one step");
    sort_records(rec, to);
  }
  std::vector<std::uint64_t>&to_left = to[0], &to_right = to[1], &to_down = to[2], &to_up = to[3];
  std::vector<std::uint64_t> arrived;
  auto exchange = [&](bool along_y, const std::vector<std::uint64_t>& lo, const std::vector<std::uint64_t>& hi,
                      std::vector<std::uint64_t>& in) {
    const bool any = along_y ? (so.down >= 0 || so.up >= 0) : (so.left >= 0 || so.right >= 0);
    if (!any) {
      if (!lo.empty() || !hi.empty()) throw_runtime_error("pic: particles to send from a block without neighbours");
      return;
    }
    if (!so.exchange) throw_runtime_error("pic: a block with neighbours and no exchange");
    const auto t0 = std::chrono::steady_clock::now();
    if (along_y) so.exchange->migrate_y(lo, hi, in);
    else so.exchange->migrate(lo, hi, in);
    m.exchange.comm_now += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  exchange(false, to_left, to_right, arrived);
  if (so.ranks_y > 1) {
    // The x arrivals of another block row go on along y.
    if (arrived.size() % kMigrationWords != 0) throw_runtime_error("pic: a migration message of a broken length");
    const SlabOwner host_rows{so.global.y0, so.global.dy, so.global.ny, so.ranks_y, so.rows.data()};
    std::vector<std::uint64_t> stay;
    for (std::size_t r = 0; r < arrived.size() / kMigrationWords; ++r) {
      const std::uint64_t* rec = &arrived[r * kMigrationWords];
      double y;
      std::memcpy(&y, &rec[3], sizeof y);
      const BlockMove move = nb(so.bx, host_rows(y));
      if (move == BlockMove::beyond)
        throw_runtime_error("pic: a particle arrived at rank " + std::to_string(so.rank) + " beyond its neighbours");
      std::vector<std::uint64_t>& dest = move == BlockMove::up ? to_up : (move == BlockMove::down ? to_down : stay);
      dest.insert(dest.end(), rec, rec + kMigrationWords);
    }
    std::vector<std::uint64_t> more;
    exchange(true, to_down, to_up, more);
    arrived = std::move(stay);
    arrived.insert(arrived.end(), more.begin(), more.end());
  }
  for (std::size_t k = 0; k < sp.size(); ++k) {
    if (!arrived.empty() && append_arrivals(*this, k, arrived)) changed[k] = 1;
    if (changed[k]) m.deposit->slots_changed(k);
  }
}

std::vector<std::uint64_t> PicGpu::column_counts() const {
  const Impl& m = *impl_;
  if (!m.slab) throw_runtime_error("pic: column counts of a run without slabs");
  const int ncols = m.g.nx;
  unsigned long long* counts = device_alloc<unsigned long long>(std::size_t(ncols));
  std::vector<std::uint64_t> out(std::size_t(ncols), 0);
  try {
    NBODY_CUDA_CHECK(cudaMemset(counts, 0, std::size_t(ncols) * sizeof(unsigned long long)));
    // Shared-memory counters where the columns fit the default 48 KiB; four blocks a
    // multiprocessor, each going over the slots with a grid stride (a block's nonzero counts
    // added once: a few hundred thousand additions, not one a warp).
    const std::size_t shared_bytes = std::size_t(ncols) * sizeof(unsigned);
    const bool shared = shared_bytes <= 48u * 1024u;
    int sms = 0;
    NBODY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, m.opt.device));
    for (std::size_t k = 0; k < m.particles.sp.size(); ++k) {
      const DeviceSpecies& d = m.particles.sp[k];
      if (m.particles.meta[k].immobile || d.n == 0) continue;
      const std::size_t most = (d.n + ElementwisePolicy::kBlock - 1) / ElementwisePolicy::kBlock;
      const int blocks = int(std::min<std::size_t>(most, std::size_t(4 * std::max(sms, 1))));
      count_columns<<<blocks, ElementwisePolicy::kBlock, shared ? shared_bytes : 0>>>(
          DevParticles{d}, m.exchange.owner(), m.so.i_offset, ncols, counts, shared);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
    NBODY_CUDA_CHECK(cudaMemcpy(out.data(), counts, std::size_t(ncols) * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  } catch (...) {
    cudaFree(counts);
    throw;
  }
  NBODY_CUDA_CHECK(cudaFree(counts));
  return out;
}

}  // namespace nbody::pic
