// The particle store of the GPU path (engine.hpp's ParticleStore): the species' slots on the
// device, the per-slot work buffers, and every sort of the slots (CUB's radix sort: by tile, by
// cell, by id, and the deterministic kernel's sort of its contributions by cell).
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <vector>

#include "cuda/check.hpp"
#include "nbody/error.hpp"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/engine.hpp"
#include "pic/cuda/particles/sort.cuh"

namespace nbody::pic {

using nbody::cuda::ElementwisePolicy;

namespace {

// A species' per-slot value arrays (not alive, not the ids): the six float64 ones, or the seven
// of the float32 store; each element's bytes.
struct SlotArray {
  void** p;
  std::size_t bytes;
};
std::vector<SlotArray> slot_arrays(DeviceSpecies& d) {
  auto a = [](auto** p) { return SlotArray{reinterpret_cast<void**>(p), sizeof(**p)}; };
  if (d.cell) return {a(&d.cell), a(&d.ox), a(&d.oy), a(&d.fux), a(&d.fuy), a(&d.fuz), a(&d.fw)};
  return {a(&d.x), a(&d.y), a(&d.ux), a(&d.uy), a(&d.uz), a(&d.w)};
}

// out[i] = in[order[i]] for n elements of `bytes` bytes (4 or 8), bit for bit.
void gather_slots(void* out, const void* in, std::size_t bytes, const unsigned* order, std::size_t n) {
  if (bytes == 8) {
    gather_by<<<blocks_for(n), ElementwisePolicy::kBlock>>>(static_cast<unsigned long long*>(out),
                                                           static_cast<const unsigned long long*>(in), order, n);
  } else {
    gather_by<<<blocks_for(n), ElementwisePolicy::kBlock>>>(static_cast<unsigned*>(out), static_cast<const unsigned*>(in),
                                                           order, n);
  }
  NBODY_CUDA_CHECK_LAUNCH();
}

}  // namespace

std::size_t particle_slot_bytes(ParticlePrecision p) {
  return p == ParticlePrecision::float32 ? sizeof(std::uint32_t) + 6 * sizeof(float) + 1 : 6 * sizeof(double) + 1;
}

ParticleStore::~ParticleStore() {
  for (DeviceSpecies& d : sp) {
    for (const SlotArray& a : slot_arrays(d)) cudaFree(*a.p);
    cudaFree(d.alive);
    if (d.id) cudaFree(d.id);
  }
  for (auto* v : {&tile_start, &tile_end})
    for (unsigned* p : *v) cudaFree(p);
  for (void* p : {static_cast<void*>(scratch), static_cast<void*>(keys), static_cast<void*>(keys_sorted),
                  static_cast<void*>(order), static_cast<void*>(order_sorted), static_cast<void*>(offs),
                  static_cast<void*>(sel), static_cast<void*>(id_sorted), static_cast<void*>(counters), cub_temp})
    if (p) cudaFree(p);
}

std::size_t ParticleStore::tile_count(int nx, int ny) {
  return std::size_t((nx + kTile - 1) / kTile) * std::size_t((ny + kTile - 1) / kTile);
}

void ParticleStore::setup_tiles(const GridGeometry& g, double y0) {
  tg.nx = g.nx, tg.ny = g.ny, tg.x0 = g.x0, tg.y0 = y0, tg.dx = g.dx, tg.dy = g.dy;
  tg.tiles_x = (g.nx + kTile - 1) / kTile;
  tg.tiles_y = (g.ny + kTile - 1) / kTile;
}

void ParticleStore::upload(const PicSimulation& from, const std::vector<std::vector<std::uint64_t>>& ids) {
  for (std::size_t sk = 0; sk < from.species().size(); ++sk) {
    const Species& s = from.species()[sk];
    Species species = s;
    species.resize(0);
    meta.push_back(species);
    DeviceSpecies d{};
    d.n = s.size();
    // On a block among several: room for arrivals (grown when needed), and the ids.
    d.cap = m.slab && m.so.ranks > 1 ? d.n + d.n / 8 + 1024 : d.n;
    if (m.opt.particle_precision == ParticlePrecision::float32) {
      // The float32 store (particle_precision.hpp), encoded here: the cells count on the whole grid.
      const GridGeometry gg = m.push_settings().geom;
      d.cc = store_cells_of(gg);
      std::vector<std::uint32_t> cell(d.n);
      std::vector<float> v[6];
      for (auto& a : v) a.resize(d.n);
      for (std::size_t p = 0; p < d.n; ++p) {
        const PackedPosition q = encode_position(s.x[p], s.y[p], d.cc);
        cell[p] = q.cell, v[0][p] = q.ox, v[1][p] = q.oy;
        v[2][p] = float(s.ux[p]), v[3][p] = float(s.uy[p]), v[4][p] = float(s.uz[p]), v[5][p] = float(s.w[p]);
      }
      d.cell = m.alloc<std::uint32_t>(d.cap);
      NBODY_CUDA_CHECK(cudaMemcpy(d.cell, cell.data(), d.n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
      float** arrays[6] = {&d.ox, &d.oy, &d.fux, &d.fuy, &d.fuz, &d.fw};
      for (int k = 0; k < 6; ++k) {
        *arrays[k] = m.alloc<float>(d.cap);
        NBODY_CUDA_CHECK(cudaMemcpy(*arrays[k], v[k].data(), d.n * sizeof(float), cudaMemcpyHostToDevice));
      }
    } else {
      double** arrays[6] = {&d.x, &d.y, &d.ux, &d.uy, &d.uz, &d.w};
      const std::vector<double>* src[6] = {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w};
      for (int k = 0; k < 6; ++k) {
        *arrays[k] = m.alloc<double>(d.cap);
        NBODY_CUDA_CHECK(cudaMemcpy(*arrays[k], src[k]->data(), d.n * sizeof(double), cudaMemcpyHostToDevice));
      }
    }
    d.alive = m.alloc<unsigned char>(d.cap);
    NBODY_CUDA_CHECK(cudaMemset(d.alive, 1, d.n));
    if (m.slab) {
      d.id = m.alloc<std::uint64_t>(d.cap);
      NBODY_CUDA_CHECK(cudaMemcpy(d.id, ids[sk].data(), d.n * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
    }
    sp.push_back(d);
  }
  counters = m.alloc<unsigned long long>(4);
  NBODY_CUDA_CHECK(cudaMemset(counters, 0, 4 * sizeof(unsigned long long)));
}

std::size_t ParticleStore::slots() const {
  std::size_t n = 0;
  for (const DeviceSpecies& d : sp) n += d.n;
  return n;
}

std::size_t ParticleStore::most_cap() const {
  std::size_t most = 0;
  for (const DeviceSpecies& d : sp) most = std::max(most, d.cap);
  return most;
}

void ParticleStore::alloc_sort_buffers(std::size_t n, bool with_scratch) {
  keys = m.alloc<unsigned>(n);
  keys_sorted = m.alloc<unsigned>(n);
  order = m.alloc<unsigned>(n);
  order_sorted = m.alloc<unsigned>(n);
  if (with_scratch) scratch = m.alloc<double>(n);
}

void ParticleStore::alloc_tile_ranges() {
  for (std::size_t k = 0; k < sp.size(); ++k) {
    tile_start.push_back(m.alloc<unsigned>(tg.count()));
    tile_end.push_back(m.alloc<unsigned>(tg.count()));
  }
}

void ParticleStore::ensure_cub(std::size_t need) {
  if (need <= cub_bytes) return;
  if (cub_temp) NBODY_CUDA_CHECK(cudaFree(cub_temp));
  cub_temp = m.alloc<char>(need);
  cub_bytes = need;
}

void ParticleStore::sort_pairs(std::size_t n, int bits) {
  std::size_t need = 0;
  NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, keys, keys_sorted, order, order_sorted, n, 0, bits));
  ensure_cub(need);
  NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, keys, keys_sorted, order, order_sorted, n, 0, bits));
}

void ParticleStore::sort_pairs(int n, int bits) {
  std::size_t need = 0;
  NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, keys, keys_sorted, order, order_sorted, n, 0, bits));
  ensure_cub(need);
  NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, keys, keys_sorted, order, order_sorted, n, 0, bits));
}

void ParticleStore::key_ranges(std::size_t n, unsigned sentinel, unsigned* start, unsigned* end) {
  cell_ranges<<<blocks_for(n), ElementwisePolicy::kBlock>>>(keys_sorted, n, sentinel, start, end);
  NBODY_CUDA_CHECK_LAUNCH();
}

void ParticleStore::sort_particles(std::size_t k, bool by_cell) {
  DeviceSpecies& s = sp[k];
  const unsigned sentinel = by_cell ? unsigned(tg.nx) * unsigned(tg.ny) : tg.count();
  if (!by_cell) {
    NBODY_CUDA_CHECK(cudaMemset(tile_start[k], 0, tg.count() * sizeof(unsigned)));
    NBODY_CUDA_CHECK(cudaMemset(tile_end[k], 0, tg.count() * sizeof(unsigned)));
  }
  if (s.n == 0) return;
  const DevParticles d{s};
  if (by_cell) {
    sort_keys<true><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, TileGeometry{tg}, keys, order, sentinel);
  } else {
    sort_keys<false><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, TileGeometry{tg}, keys, order, sentinel);
  }
  NBODY_CUDA_CHECK_LAUNCH();
  int bits = 1;
  while ((std::size_t(1) << bits) <= std::size_t(sentinel)) ++bits;
  sort_pairs(d.n, bits);
  // (on a block the work buffers grow with the arrivals: sel and id_sorted, not scratch)
  double* tmp = m.slab ? sel : scratch;
  for (const SlotArray& a : slot_arrays(s)) {
    gather_slots(tmp, *a.p, a.bytes, order_sorted, d.n);
    NBODY_CUDA_CHECK(cudaMemcpy(*a.p, tmp, d.n * a.bytes, cudaMemcpyDeviceToDevice));
  }
  if (d.id) {  // a block's ids move with their particles
    gather_by<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(id_sorted, d.id, order_sorted, d.n);
    NBODY_CUDA_CHECK_LAUNCH();
    NBODY_CUDA_CHECK(cudaMemcpy(d.id, id_sorted, d.n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice));
  }
  const unsigned long long all = d.n;
  NBODY_CUDA_CHECK(cudaMemcpy(counters + 2, &all, sizeof all, cudaMemcpyHostToDevice));
  first_sentinel<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(keys_sorted, d.n, sentinel, counters + 2);
  NBODY_CUDA_CHECK_LAUNCH();
  unsigned long long live = 0;
  NBODY_CUDA_CHECK(cudaMemcpy(&live, counters + 2, sizeof live, cudaMemcpyDeviceToHost));
  s.n = std::size_t(live);
  NBODY_CUDA_CHECK(cudaMemset(s.alive, 1, std::max<std::size_t>(s.n, 1)));
  if (s.n > 0 && !by_cell) key_ranges(s.n, sentinel, tile_start[k], tile_end[k]);
}

// Sort when the share of slots out of place passes empty_ratio (or every sort_every steps);
// always before the first step. Out of place: for tiled, particles outside their tile's cells;
// for warp, the particles that could not share their warp's window beyond those of the first
// step after the sort (warps across cell boundaries, and on a block the arrivals appended at its
// end); the empty slots of absorbed particles (a block among several compacts those every step).
void ParticleStore::sort_if_due(bool warp) {
  const PicGpuOptions& opt = m.opt;
  bool due = !sorted || (opt.sort_every > 0 && m.step % opt.sort_every == 0);
  if (!due && opt.empty_ratio >= 0) {
    unsigned long long c[2];
    NBODY_CUDA_CHECK(cudaMemcpy(c, counters, sizeof c, cudaMemcpyDeviceToHost));
    if (!(m.slab && m.so.ranks > 1)) dead_slots += c[1];
    double out = double(c[0]);
    if (warp) {
      if (alone_after_sort < 0) alone_after_sort = out;
      out = std::max(0.0, out - alone_after_sort);
    }
    // Over several blocks the share is the run's: every rank sorts at the same step (one
    // GPU's decision, and no step waits for one block's sort while the others sort later).
    double share[2] = {out + double(dead_slots), double(slots())};
    if (m.slab && m.so.ranks > 1 && m.so.exchange) m.so.exchange->sum(share, 2);
    due = share[1] > 0 && share[0] > opt.empty_ratio * share[1];
  }
  if (due) {
    for (std::size_t k = 0; k < sp.size(); ++k) sort_particles(k, warp);
    sorted = true;
    dead_slots = 0;
    alone_after_sort = -1;
    ++sort_count;
  }
  NBODY_CUDA_CHECK(cudaMemset(counters, 0, 2 * sizeof(unsigned long long)));
}

void ParticleStore::sort_by_id(std::size_t k) {
  DeviceSpecies& d = sp[k];
  if (d.n < 2) return;
  iota_kernel<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(order, d.n);
  NBODY_CUDA_CHECK_LAUNCH();
  std::size_t need = 0;
  NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, d.id, id_sorted, order, order_sorted, int(d.n)));
  ensure_cub(need);
  NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, d.id, id_sorted, order, order_sorted, int(d.n)));
  for (const SlotArray& a : slot_arrays(d)) {
    gather_slots(sel, *a.p, a.bytes, order_sorted, d.n);
    NBODY_CUDA_CHECK(cudaMemcpy(*a.p, sel, d.n * a.bytes, cudaMemcpyDeviceToDevice));
  }
  NBODY_CUDA_CHECK(cudaMemcpy(d.id, id_sorted, d.n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice));
}

void ParticleStore::free_work() {
  for (void* p : {static_cast<void*>(keys), static_cast<void*>(keys_sorted), static_cast<void*>(order),
                  static_cast<void*>(order_sorted), static_cast<void*>(offs), static_cast<void*>(sel),
                  static_cast<void*>(id_sorted)})
    if (p) NBODY_CUDA_CHECK(cudaFree(p));
  keys = keys_sorted = order = order_sorted = nullptr, offs = nullptr;
  sel = nullptr, id_sorted = nullptr;
}

void ParticleStore::ensure_work(std::size_t need) {
  if (need <= work_cap) return;
  free_work();
  m.deposit->reserve_slots(need);
  keys = m.alloc<unsigned>(need), keys_sorted = m.alloc<unsigned>(need);
  order = m.alloc<unsigned>(need), order_sorted = m.alloc<unsigned>(need);
  offs = m.alloc<signed char>(2 * need);
  sel = m.alloc<double>(need);
  id_sorted = m.alloc<std::uint64_t>(need);
  work_cap = need;
}

void ParticleStore::ensure_capacity(std::size_t k, std::size_t need) {
  DeviceSpecies& d = sp[k];
  if (need <= d.cap) return;
  const std::size_t cap = std::max(need, d.cap + d.cap / 2 + 1024);
  for (const SlotArray& a : slot_arrays(d)) {
    void* p = m.alloc<char>(cap * a.bytes);
    if (d.n > 0) NBODY_CUDA_CHECK(cudaMemcpy(p, *a.p, d.n * a.bytes, cudaMemcpyDeviceToDevice));
    NBODY_CUDA_CHECK(cudaFree(*a.p));
    *a.p = p;
  }
  std::uint64_t* id = m.alloc<std::uint64_t>(cap);
  if (d.n > 0) NBODY_CUDA_CHECK(cudaMemcpy(id, d.id, d.n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice));
  NBODY_CUDA_CHECK(cudaFree(d.id));
  d.id = id;
  unsigned char* alive = m.alloc<unsigned char>(cap);
  if (d.n > 0) NBODY_CUDA_CHECK(cudaMemcpy(alive, d.alive, d.n, cudaMemcpyDeviceToDevice));
  NBODY_CUDA_CHECK(cudaFree(d.alive));
  d.alive = alive;
  d.cap = cap;
  ensure_work(cap);
}

// The float32 store's live slots decoded into s (float64 values: exact for the momenta and the
// weight, the positions x0 + (i + o) dx rounded once, which encode back to the same bits).
void ParticleStore::copy_float32_to(const DeviceSpecies& d, const std::vector<unsigned char>& alive, Species& s) const {
  std::vector<std::uint32_t> cell(d.n);
  std::vector<float> v[6];
  const float* src[6] = {d.ox, d.oy, d.fux, d.fuy, d.fuz, d.fw};
  if (d.n > 0) NBODY_CUDA_CHECK(cudaMemcpy(cell.data(), d.cell, d.n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  for (int q = 0; q < 6; ++q) {
    v[q].resize(d.n);
    if (d.n > 0) NBODY_CUDA_CHECK(cudaMemcpy(v[q].data(), src[q], d.n * sizeof(float), cudaMemcpyDeviceToHost));
  }
  s.resize(0);
  for (std::size_t p = 0; p < d.n; ++p) {
    if (!alive[p]) continue;
    double x = 0, y = 0;
    decode_position(PackedPosition{cell[p], v[0][p], v[1][p]}, d.cc, x, y);
    s.push_back(x, y, double(v[2][p]), double(v[3][p]), double(v[4][p]), double(v[5][p]));
  }
}

void ParticleStore::copy_to(PicSimulation& to) const {
  if (to.species().size() != sp.size()) throw_runtime_error("pic: copy_to a simulation with other species");
  for (std::size_t k = 0; k < sp.size(); ++k) {
    const DeviceSpecies& d = sp[k];
    std::vector<unsigned char> alive(d.n);
    NBODY_CUDA_CHECK(cudaMemcpy(alive.data(), d.alive, d.n, cudaMemcpyDeviceToHost));
    Species& s = to.species()[k];
    if (d.cell) {
      copy_float32_to(d, alive, s);
      continue;
    }
    const double* src[6] = {d.x, d.y, d.ux, d.uy, d.uz, d.w};
    // (every slot live, as a block among several keeps them after its migration: straight into
    // the species' arrays)
    if (std::find(alive.begin(), alive.end(), 0) == alive.end()) {
      std::vector<double>* dst[6] = {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w};
      for (int q = 0; q < 6; ++q) {
        dst[q]->resize(d.n);
        NBODY_CUDA_CHECK(cudaMemcpy(dst[q]->data(), src[q], d.n * sizeof(double), cudaMemcpyDeviceToHost));
      }
      continue;
    }
    std::vector<double> a[6];
    for (int q = 0; q < 6; ++q) {
      a[q].resize(d.n);
      NBODY_CUDA_CHECK(cudaMemcpy(a[q].data(), src[q], d.n * sizeof(double), cudaMemcpyDeviceToHost));
    }
    s.resize(0);
    for (std::size_t p = 0; p < d.n; ++p)
      if (alive[p]) s.push_back(a[0][p], a[1][p], a[2][p], a[3][p], a[4][p], a[5][p]);
  }
}

std::vector<std::vector<std::uint64_t>> ParticleStore::ids() const {
  std::vector<std::vector<std::uint64_t>> out(sp.size());
  if (!m.slab) return out;
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t k = 0; k < sp.size(); ++k) {
    const DeviceSpecies& d = sp[k];
    std::vector<std::uint64_t> id(d.n);
    std::vector<unsigned char> alive(d.n);
    if (d.n > 0) {
      NBODY_CUDA_CHECK(cudaMemcpy(id.data(), d.id, d.n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
      NBODY_CUDA_CHECK(cudaMemcpy(alive.data(), d.alive, d.n, cudaMemcpyDeviceToHost));
    }
    // (every slot live, as a block among several keeps them after its migration: the copy itself)
    if (std::find(alive.begin(), alive.end(), 0) == alive.end()) {
      out[k] = std::move(id);
      continue;
    }
    out[k].reserve(d.n);
    for (std::size_t p = 0; p < d.n; ++p)
      if (alive[p]) out[k].push_back(id[p]);
  }
  return out;
}

std::vector<std::size_t> PicGpu::slot_counts() const {
  std::vector<std::size_t> n;
  for (const DeviceSpecies& d : impl_->particles.sp) n.push_back(d.n);
  return n;
}

std::vector<std::vector<std::uint64_t>> PicGpu::ids() const { return impl_->particles.ids(); }

std::int64_t PicGpu::sorts() const { return impl_->particles.sort_count; }

}  // namespace nbody::pic
