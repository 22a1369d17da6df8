#pragma once
// A CUDA graph of one conditional WHILE node (CUDA 12.4 and later): its body, captured from the
// work a function queues on a stream, runs again and again from one launch for as long as a
// kernel at the body's end sets the node's condition. Loops of many small steps (the Hermite
// block steps of an interval) then run with no trip to the host and no launch gap between steps.
// Include from .cu files only.
#include <cuda_runtime.h>

#include <functional>

#if CUDART_VERSION >= 12040
#define NBODY_HAVE_WHILE_GRAPHS 1
#else
#define NBODY_HAVE_WHILE_GRAPHS 0
#endif

namespace nbody::cuda {

#if NBODY_HAVE_WHILE_GRAPHS

class WhileGraph {
 public:
  // `body(handle)` queues one round on `stream` (kernels, memsets and device-to-device copies;
  // no allocation, no wait, no copy to the host) and last a kernel that calls
  // cudaGraphSetConditional(handle, more). The condition is 1 at every launch: the body runs at
  // least once.
  WhileGraph(cudaStream_t stream, const std::function<void(cudaGraphConditionalHandle)>& body);
  ~WhileGraph();
  WhileGraph(const WhileGraph&) = delete;
  WhileGraph& operator=(const WhileGraph&) = delete;

  // Queues the loop on the stream it was captured from.
  void launch();

 private:
  cudaStream_t stream_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

#endif

}  // namespace nbody::cuda
