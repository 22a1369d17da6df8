#pragma once
// The pic-scaling suite's transfer records (bench/pic_scaling.cpp, --rungs transfer): GPU buffers
// moved between two ranks the ways the PIC GPU blocks move their guard messages
// (GpuSlabOptions::guards). Built with CUDA (pic_transfer.cu); without, it says so
// (pic_transfer_stub.cpp).
#include <cstddef>
#include <string>
#include <vector>

#include "comm/communicator.hpp"

namespace nbody::bench {

// Document 004's transfer comparison (its Fig. 9) as the GPU blocks move messages: one message of
// `bytes` from rank 0's GPU buffer into rank 1's and one back (a round trip; a one-way time is
// half of it), staged through the host as parallel.exchange = "host" does (cudaMemcpy into a host
// vector, Communicator send/recv, cudaMemcpy to the device) or GPU to GPU as "ipc" does (CUDA IPC:
// a ready signal through the host, the receiver's copy from the sender's mapped buffer on its
// device, the next signal after it). `repeats` round trips of each after one warm-up, the
// seconds of each on rank 0 (ranks 0 and 1 take part; collective over those two, the others
// return at once). Where `comm` reports device-buffer support (CUDA-aware MPI), a third way as
// "mpi" moves them: the device buffers to Communicator send/recv as they are; otherwise mpi_s
// stays empty and mpi_unavailable says why. The messages' bytes are checked after the last round
// trip of each way (a wrong byte throws).
struct TransferRoundTrips {
  std::vector<double> host_s, direct_s, mpi_s;
  std::string mpi_unavailable;  // why the CUDA-aware MPI way was not timed ("" when it was)
};
TransferRoundTrips pic_transfer_round_trips(comm::Communicator& comm, std::size_t bytes, int repeats);

}  // namespace nbody::bench
