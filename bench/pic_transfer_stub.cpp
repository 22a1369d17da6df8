// The pic-scaling suite's transfers in a build without CUDA: it says so.
#include "nbody/error.hpp"
#include "pic_transfer.hpp"

namespace nbody::bench {

TransferRoundTrips pic_transfer_round_trips(comm::Communicator&, std::size_t, int) {
  throw_input_error("pic: the GPU transfers need a build with CUDA (configure with -DNBODY_ENABLE_CUDA=ON)");
}

}  // namespace nbody::bench
