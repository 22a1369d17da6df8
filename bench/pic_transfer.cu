// The pic-scaling suite's transfers between two ranks' GPUs (pic_transfer.hpp).
#include "pic_transfer.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "nbody/error.hpp"
#include "pic/cuda/ipc.hpp"
#include "pic/cuda/pic_gpu.hpp"

namespace nbody::bench {
namespace {

unsigned char* device_buffer(std::size_t bytes) {
  void* p = nullptr;
  NBODY_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)));
  return static_cast<unsigned char*>(p);
}

}  // namespace

TransferRoundTrips pic_transfer_round_trips(comm::Communicator& comm, std::size_t bytes, int repeats) {
  TransferRoundTrips out;
  const int me = comm.rank();
  if (comm.size() < 2) throw_runtime_error("pic: a transfer needs two ranks");
  if (me > 1) return out;
  const int other = 1 - me;
  const int devices = pic::pic_gpu_device_count();
  if (devices < 1) throw_input_error("pic: no usable CUDA device for the transfers");
  NBODY_CUDA_CHECK(cudaSetDevice(me % devices));
  constexpr int kTag = 7900;
  // Each rank's message (a byte pattern of its own), and where the other's arrives.
  std::vector<unsigned char> mine(bytes), theirs(bytes);
  for (std::size_t k = 0; k < bytes; ++k) {
    mine[k] = static_cast<unsigned char>((k * 7 + 13 * std::size_t(me) + 1) & 0xff);
    theirs[k] = static_cast<unsigned char>((k * 7 + 13 * std::size_t(other) + 1) & 0xff);
  }
  unsigned char* send = device_buffer(bytes);
  unsigned char* recv = device_buffer(bytes);
  void* peer = nullptr;
  auto cleanup = [&] {
    if (peer) cudaIpcCloseMemHandle(peer);
    peer = nullptr;
  };
  try {
    NBODY_CUDA_CHECK(cudaMemcpy(send, mine.data(), bytes, cudaMemcpyHostToDevice));
    auto check = [&](const char* how) {
      std::vector<unsigned char> got(bytes);
      NBODY_CUDA_CHECK(cudaMemcpy(got.data(), recv, bytes, cudaMemcpyDeviceToHost));
      if (got != theirs)
        throw_runtime_error(std::string("pic: a ") + how + " transfer of " + std::to_string(bytes) + " bytes arrived wrong");
      NBODY_CUDA_CHECK(cudaMemset(recv, 0, bytes));
    };
    NBODY_CUDA_CHECK(cudaMemset(recv, 0, bytes));
    // One warm-up and `repeats` timed round trips of one way of moving (`leg(true)` sends, `leg(false)`
    // receives): rank 0's seconds of each into `into`.
    auto round_trips = [&](const auto& leg, std::vector<double>& into) {
      for (int r = -1; r < repeats; ++r) {
        comm.barrier();
        const auto t0 = std::chrono::steady_clock::now();
        leg(me == 0);
        leg(me == 1);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r >= 0 && me == 0) into.push_back(s);
      }
    };
    std::vector<unsigned char> stage(bytes);
    // Host-staged: rank 0 sends first, rank 1 answers.
    auto host_leg = [&](bool sending) {
      if (sending) {
        NBODY_CUDA_CHECK(cudaMemcpy(stage.data(), send, bytes, cudaMemcpyDeviceToHost));
        comm.send(stage.data(), std::int64_t(bytes), comm::DataType::byte, other, kTag);
      } else {
        comm.recv(stage.data(), std::int64_t(bytes), comm::DataType::byte, other, kTag);
        NBODY_CUDA_CHECK(cudaMemcpy(recv, stage.data(), bytes, cudaMemcpyHostToDevice));
      }
    };
    round_trips(host_leg, out.host_s);
    check("host-staged");
    // GPU to GPU: the send buffers exported and mapped by the other rank.
    const cudaIpcMemHandle_t h = pic::ipc_handle(send);
    cudaIpcMemHandle_t theirs_h;
    if (me == 0) {
      comm.send(&h, std::int64_t(sizeof h), comm::DataType::byte, other, kTag + 1);
      comm.recv(&theirs_h, std::int64_t(sizeof h), comm::DataType::byte, other, kTag + 1);
    } else {
      comm.recv(&theirs_h, std::int64_t(sizeof h), comm::DataType::byte, other, kTag + 1);
      comm.send(&h, std::int64_t(sizeof h), comm::DataType::byte, other, kTag + 1);
    }
    peer = pic::ipc_map(theirs_h, "the GPU-to-GPU transfers");
    std::int64_t token = 1;
    auto direct_leg = [&](bool sending) {
      if (sending) {
        comm.send(&token, 1, comm::DataType::i64, other, kTag + 2);  // (its buffer holds the message)
      } else {
        comm.recv(&token, 1, comm::DataType::i64, other, kTag + 2);
        NBODY_CUDA_CHECK(cudaMemcpy(recv, peer, bytes, cudaMemcpyDeviceToDevice));
        NBODY_CUDA_CHECK(cudaDeviceSynchronize());  // (a device-to-device copy returns before it ends)
      }
    };
    round_trips(direct_leg, out.direct_s);
    // (the last copy done on both sides before either unmaps or frees)
    comm.barrier();
    check("GPU-to-GPU");
    cleanup();
    comm.barrier();
    // CUDA-aware MPI: the device buffers to send / recv as they are. Only where both ranks'
    // library reports it (asked together, so that neither waits for a message the other never
    // sends); a library that does not take device pointers would fail or crash inside MPI.
    const comm::DeviceBufferSupport support = comm::device_buffer_support_everywhere(comm);
    if (support.supported) {
      NBODY_CUDA_CHECK(cudaDeviceSynchronize());  // (check's memset done before MPI writes into recv)
      auto mpi_leg = [&](bool sending) {
        if (sending) comm.send(send, std::int64_t(bytes), comm::DataType::byte, other, kTag + 3);
        else comm.recv(recv, std::int64_t(bytes), comm::DataType::byte, other, kTag + 3);
      };
      round_trips(mpi_leg, out.mpi_s);
      check("CUDA-aware MPI");
    } else {
      out.mpi_unavailable = support.how;
    }
  } catch (...) {
    cleanup();
    cudaFree(send);
    cudaFree(recv);
    throw;
  }
  NBODY_CUDA_CHECK(cudaFree(send));
  NBODY_CUDA_CHECK(cudaFree(recv));
  return out;
}

}  // namespace nbody::bench
