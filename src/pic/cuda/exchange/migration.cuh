#pragma once
// A block's particle migration on the device: which slots empty, the leavers' records, the holes
// filled from the species' end, the arrivals unpacked.

#include <cstddef>
#include <cstdint>

#include "pic/cuda/common.cuh"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/parallel/slab_index.hpp"

namespace nbody::pic {
namespace {

// Migration (DomainPic::migrate): where each slot goes (slab_index.hpp's BlockNeighbours: along
// x when its block column changed, else along y). A slot empties when its particle leaves or was
// absorbed; the selections below ask that of a counting iterator's slots.
struct SlotEmpties {
  DevParticles d;
  SlabOwner own, row_own;
  BlockNeighbours nb;
  bool want = true;  // true: the slots that empty; false: those that stay
  __device__ bool operator()(unsigned i) const {
    const bool empties = !d.alive[i] || nb(own(d.px(i)), row_own(d.py(i))) != BlockMove::stay;
    return empties == want;
  }
};
// The records of the m slots that empty (kDeviceRecordWords words: a code, then a migration
// record): the code kSlotEmpty for an absorbed particle's slot, else kSlotLeaves + its BlockMove;
// one beyond the neighbours is counted in *bad.
inline constexpr unsigned char kSlotEmpty = 1, kSlotLeaves = 2;
inline constexpr int kDeviceRecordWords = kMigrationWords + 1;
__global__ void pack_emptied(DevParticles d, SlabOwner own, SlabOwner row_own, BlockNeighbours nb, const unsigned* slots,
                             std::size_t m, std::uint64_t species, std::uint64_t* out, unsigned long long* bad) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; p < m; p += stride) {
    const unsigned i = slots[p];
    std::uint64_t* r = out + p * kDeviceRecordWords;
    std::uint64_t code = kSlotEmpty;
    if (d.alive[i]) {
      const BlockMove move = nb(own(d.px(i)), row_own(d.py(i)));
      if (move == BlockMove::beyond) atomicAdd(bad, 1ull);
      else code = kSlotLeaves + std::uint64_t(move);
    }
    r[0] = code;
    r[1] = species;
    r[2] = d.id[i];
    // (the float32 store's values as float64: unpack_arrivals' store encodes them back to the
    // same bits, particle_precision.hpp)
    const ParticleRef pr = d.load(i);
    const double v[6] = {pr.x, pr.y, pr.ux, pr.uy, pr.uz, pr.w};
    for (int q = 0; q < 6; ++q) r[3 + q] = static_cast<std::uint64_t>(__double_as_longlong(v[q]));
  }
}
// Holes filled from the end: the *t particles staying in the last m slots (from[p]) move into the
// *t slots before them that empty (to[p]: the first of the ascending emptied slots; as many as
// stay in the last m); the species then holds n - m slots, every one alive. (*t on the device:
// at most m, the launch's bound.)
template <class Count>
__global__ void fill_holes(DevParticles d, const unsigned* to, const unsigned* from, const Count* t_count) {
  const std::size_t t = std::size_t(*t_count);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; p < t; p += stride) {
    const unsigned a = to[p], b = from[p];
    d.move_slot(a, b);
    d.id[a] = d.id[b];
    d.alive[a] = 1;
  }
}
// The holes of a species from its emptied slots in no fixed order (`list`, m of them, n slots):
// those before the last m into holes[atomicAdd(holes_count)]; those among the last m flagged
// in tail[slot - (n - m)] (zeroed before).
__global__ void split_emptied(const unsigned* list, std::size_t m, std::size_t n, unsigned* tail, unsigned* holes,
                             unsigned* holes_count) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; p < m; p += stride) {
    const std::size_t e = list[p];
    if (e >= n - m) tail[e - (n - m)] = 1;
    else holes[atomicAdd(holes_count, 1u)] = unsigned(e);
  }
}
// The slots among the last m (n slots) not flagged in `tail`: the particles that stay there, into
// stay[atomicAdd(stay_count)]. (As many as there are holes before them.)
__global__ void collect_staying(const unsigned* tail, std::size_t m, std::size_t n, unsigned* stay, unsigned* stay_count) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t q = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; q < m; q += stride)
    if (!tail[q]) stay[atomicAdd(stay_count, 1u)] = unsigned(n - m + q);
}
// The arrivals (na of them, in `in` as 7 arrays of na words: id, then the bits of x, y, ux, uy,
// uz, w) into slots n0 .. n0 + na.
__global__ void unpack_arrivals(DevParticles d, std::size_t n0, const std::uint64_t* in, std::size_t na) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; p < na; p += stride) {
    const std::size_t i = n0 + p;
    d.id[i] = in[p];
    double a[6];
    for (int q = 0; q < 6; ++q) a[q] = __longlong_as_double(static_cast<long long>(in[(1 + std::size_t(q)) * na + p]));
    d.store_all(i, ParticleRef{a[0], a[1], a[2], a[3], a[4], a[5]});
    d.alive[i] = 1;
  }
}

}  // namespace
}  // namespace nbody::pic
