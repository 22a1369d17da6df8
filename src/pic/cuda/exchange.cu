// A block's guard messages on the GPU path (engine.hpp's BlockExchange): packed on the device and
// moved through the host, GPU to GPU by CUDA IPC, or as device buffers to a CUDA-aware MPI; the
// folds of a block's sources across its cuts.
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "nbody/error.hpp"
#include "pic/cuda/engine.hpp"
#include "pic/cuda/exchange/guards.cuh"
#include "pic/cuda/ipc.hpp"

namespace nbody::pic {

using nbody::cuda::ElementwisePolicy;

cudaIpcMemHandle_t ipc_handle(void* p) {
  cudaIpcMemHandle_t h;
  NBODY_CUDA_CHECK(cudaIpcGetMemHandle(&h, p));
  return h;
}

void* ipc_map(const cudaIpcMemHandle_t& h, const std::string& what) {
  void* p = nullptr;
  const cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
  if (e != cudaSuccess) throw_input_error("pic: " + what + ": cannot map the other process's GPU buffer (" + cudaGetErrorString(e) + ")");
  return p;
}

BlockExchange::~BlockExchange() {
  for (void* p : {static_cast<void*>(starts), static_cast<void*>(rows), static_cast<void*>(stage)})
    if (p) cudaFree(p);
  for (double* p : mpi_buf)
    if (p) cudaFree(p);
  // (exported buffers are freed only after every neighbour unmapped them: close_peers on every
  // rank, then a barrier; otherwise, on an error's way out, they are left to the process's end)
  for (auto& set : peer_buf)
    for (double* p : set)
      if (p) cudaIpcCloseMemHandle(p);
  if (peers_closed || !exported)
    for (auto& set : out_buf)
      for (double* p : set)
        if (p) cudaFree(p);
}

void BlockExchange::setup(int arrays) {
  const GpuSlabOptions& so = m.so;
  starts = m.alloc<int>(so.starts.size());
  NBODY_CUDA_CHECK(cudaMemcpy(starts, so.starts.data(), so.starts.size() * sizeof(int), cudaMemcpyHostToDevice));
  rows = m.alloc<int>(so.rows.size());
  NBODY_CUDA_CHECK(cudaMemcpy(rows, so.rows.data(), so.rows.size() * sizeof(int), cudaMemcpyHostToDevice));
  stage_len = std::size_t(arrays) * std::size_t(std::max(m.g.rows(), m.g.stride())) * kGuard;
  stage = m.alloc<double>(stage_len);
}

SlabOwner BlockExchange::owner() const {
  return SlabOwner{m.so.global.x0, m.so.global.dx, m.so.global.nx, m.so.ranks_x, starts};
}
SlabOwner BlockExchange::row_owner() const {
  return SlabOwner{m.so.global.y0, m.so.global.dy, m.so.global.ny, m.so.ranks_y, rows};
}
bool BlockExchange::cut() const { return m.slab && (m.so.cut_lo || m.so.cut_hi); }
bool BlockExchange::cut_y() const { return m.slab && (m.so.cut_y_lo || m.so.cut_y_hi); }

void BlockExchange::swap_guards(int what, bool along_y, const FieldView* table, int ncomp, int send_lo, int send_hi,
                                int recv_lo, int recv_hi, bool add) {
  const GridGeometry& g = m.g;
  const GpuSlabOptions& so = m.so;
  auto region = [&](int first) { return along_y ? guard_rows(g, first) : guard_columns(g, first); };
  const std::size_t len = std::size_t(ncomp) * region(0).size();
  if (len > stage_len) throw_runtime_error("pic: the block staging buffer is too small");
  if (!so.exchange) throw_runtime_error("pic: a block with a cut side and no exchange");
  const bool lo = along_y ? so.cut_y_lo : so.cut_lo, hi = along_y ? so.cut_y_hi : so.cut_hi;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<double> to_lo, to_hi, from_lo, from_hi;
  auto pack = [&](int first, std::vector<double>& out) {
    pack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(first), stage);
    NBODY_CUDA_CHECK_LAUNCH();
    out.resize(len);
    NBODY_CUDA_CHECK(cudaMemcpy(out.data(), stage, len * sizeof(double), cudaMemcpyDeviceToHost));
  };
  auto unpack = [&](int first, const std::vector<double>& in) {
    NBODY_CUDA_CHECK(cudaMemcpy(stage, in.data(), len * sizeof(double), cudaMemcpyHostToDevice));
    unpack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(first), stage, add);
    NBODY_CUDA_CHECK_LAUNCH();
  };
  if (so.guards == GuardExchange::mpi) {
    // CUDA-aware MPI: packed into device buffers, the stream drained (MPI reads the buffers
    // outside CUDA's stream order), the four messages through the communicator with device
    // pointers, unpacked from the device receive buffers. One axis's exchange completes before
    // the next begins, so the two axes share the buffers.
    if (!mpi_buf[0])
      for (double*& p : mpi_buf) p = m.alloc<double>(stage_len);
    if (lo) pack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(send_lo), mpi_buf[0]);
    NBODY_CUDA_CHECK_LAUNCH();
    if (hi) pack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(send_hi), mpi_buf[1]);
    NBODY_CUDA_CHECK_LAUNCH();
    NBODY_CUDA_CHECK(cudaDeviceSynchronize());
    so.exchange->swap_device(what, along_y, lo ? mpi_buf[0] : nullptr, hi ? mpi_buf[1] : nullptr,
                             lo ? mpi_buf[2] : nullptr, hi ? mpi_buf[3] : nullptr, len);
    if (lo) unpack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(recv_lo), mpi_buf[2], add);
    NBODY_CUDA_CHECK_LAUNCH();
    if (hi) unpack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(recv_hi), mpi_buf[3], add);
    NBODY_CUDA_CHECK_LAUNCH();
    NBODY_CUDA_CHECK(cudaDeviceSynchronize());
    comm_now += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return;
  }
  if (so.guards == GuardExchange::ipc) {
    // GPU to GPU: packed into this exchange's set of exported buffers, a ready signal each way,
    // each side unpacked from the neighbour's buffer in place. No acknowledgement: the next
    // exchange of the axis writes the other set, and the one after this set again only once
    // the neighbours' ready signal of the one between came, which they send after they read
    // this one (the stream drained after the unpacking).
    open_direct(along_y);
    const int a = along_y ? 2 : 0;
    const unsigned set = direct_swaps[a / 2]++ & 1u;
    double* const* out = out_buf[set];
    double* const* peer = peer_buf[set];
    if (lo) pack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(send_lo), out[a]);
    NBODY_CUDA_CHECK_LAUNCH();
    if (hi) pack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(send_hi), out[a + 1]);
    NBODY_CUDA_CHECK_LAUNCH();
    NBODY_CUDA_CHECK(cudaDeviceSynchronize());
    so.exchange->notify(2, along_y, lo, hi);
    if (lo) unpack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(recv_lo), peer[a], add);
    NBODY_CUDA_CHECK_LAUNCH();
    if (hi) unpack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(recv_hi), peer[a + 1], add);
    NBODY_CUDA_CHECK_LAUNCH();
    NBODY_CUDA_CHECK(cudaDeviceSynchronize());
    comm_now += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return;
  }
  if (lo) pack(send_lo, to_lo);
  if (hi) pack(send_hi, to_hi);
  if (along_y) so.exchange->swap_y(what, to_lo, to_hi, from_lo, from_hi);
  else so.exchange->swap(what, to_lo, to_hi, from_lo, from_hi);
  if (from_lo.size() != (lo ? len : 0) || from_hi.size() != (hi ? len : 0))
    throw_runtime_error("pic: a block guard message of the wrong size");
  if (lo) unpack(recv_lo, from_lo);
  if (hi) unpack(recv_hi, from_hi);
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());
  comm_now += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The direct exchange of an axis set up at its first use (every rank at the same point): this
// rank's buffers exported (two sets), their CUDA IPC handles swapped with the neighbours, theirs
// mapped.
void BlockExchange::open_direct(bool along_y) {
  const GpuSlabOptions& so = m.so;
  const int a = along_y ? 2 : 0;
  if (direct_open[a / 2]) return;
  const bool lo = along_y ? so.cut_y_lo : so.cut_lo, hi = along_y ? so.cut_y_hi : so.cut_hi;
  static_assert(sizeof(cudaIpcMemHandle_t) % sizeof(double) == 0);
  constexpr std::size_t words = sizeof(cudaIpcMemHandle_t) / sizeof(double);
  std::vector<double> to_lo, to_hi, from_lo, from_hi;
  for (int s = 0; s < 2; ++s) {
    if (!(s == 0 ? lo : hi)) continue;
    std::vector<double>& to = s == 0 ? to_lo : to_hi;
    for (int set = 0; set < 2; ++set) {
      out_buf[set][a + s] = m.alloc<double>(stage_len);
      const cudaIpcMemHandle_t h = ipc_handle(out_buf[set][a + s]);
      to.resize(to.size() + words);
      std::memcpy(to.data() + to.size() - words, &h, sizeof h);
    }
  }
  exported = exported || lo || hi;
  if (along_y) so.exchange->swap_y(4, to_lo, to_hi, from_lo, from_hi);
  else so.exchange->swap(4, to_lo, to_hi, from_lo, from_hi);
  if (from_lo.size() != (lo ? 2 * words : 0) || from_hi.size() != (hi ? 2 * words : 0))
    throw_runtime_error("pic: a block's neighbour sent no CUDA IPC handle");
  for (int s = 0; s < 2; ++s) {
    const std::vector<double>& in = s == 0 ? from_lo : from_hi;
    if (in.empty()) continue;
    for (int set = 0; set < 2; ++set) {
      cudaIpcMemHandle_t h;
      std::memcpy(&h, in.data() + std::size_t(set) * words, sizeof h);
      peer_buf[set][a + s] =
          static_cast<double*>(ipc_map(h, "parallel.exchange = \"ipc\" (use \"host\" where it fails)"));
    }
  }
  direct_open[a / 2] = true;
}

void BlockExchange::fold_sources(const FieldView* table, int ncomp) {
  const GridGeometry& g = m.g;
  const GpuSlabOptions& so = m.so;
  const PicSettings& s = m.s;
  const bool px = s.field_bc.x == FieldBoundary::periodic, py = s.field_bc.y == FieldBoundary::periodic;
  FieldView* t = const_cast<FieldView*>(table);
  if (so.ranks_y == 1 && py) {
    m.fields.fold_y(t, ncomp, true);
  } else if (!py) {
    drop_y_guards<<<exact_blocks(std::size_t(ncomp) * std::size_t(g.stride())), ElementwisePolicy::kBlock>>>(
        table, ncomp, g.nx, g.ny, so.down < 0, so.up < 0);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  if (cut_y()) swap_guards(0, true, table, ncomp, -kGuard, g.ny, 0, g.ny - kGuard, true);
  if (so.ranks_x == 1 && px) {
    m.fields.fold_x(t, ncomp, true);
  } else if (!px) {
    drop_x_guards<<<exact_blocks(std::size_t(ncomp) * std::size_t(g.rows())), ElementwisePolicy::kBlock>>>(
        table, ncomp, g.nx, g.ny, so.left < 0, so.right < 0);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  if (cut()) swap_guards(0, false, table, ncomp, -kGuard, g.nx, 0, g.nx - kGuard, true);
}

void BlockExchange::close_peers() {
  for (auto& set : peer_buf)
    for (double*& p : set) {
      if (p) NBODY_CUDA_CHECK(cudaIpcCloseMemHandle(p));
      p = nullptr;
    }
  direct_open[0] = direct_open[1] = false;
  peers_closed = true;
}

void PicGpu::close_peers() { impl_->exchange.close_peers(); }

}  // namespace nbody::pic
