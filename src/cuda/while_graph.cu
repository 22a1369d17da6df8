// The conditional WHILE graph (while_graph.hpp): the node added to an empty graph, its body
// captured into the node's body graph with cudaStreamBeginCaptureToGraph, the whole instantiated
// once.
#include "cuda/while_graph.hpp"

#include "cuda/check.hpp"

namespace nbody::cuda {

#if NBODY_HAVE_WHILE_GRAPHS

WhileGraph::WhileGraph(cudaStream_t stream, const std::function<void(cudaGraphConditionalHandle)>& body)
    : stream_(stream) {
  NBODY_CUDA_CHECK(cudaGraphCreate(&graph_, 0));
  try {
    cudaGraphConditionalHandle handle{};
    NBODY_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, graph_, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams params{};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = handle;
    params.conditional.type = cudaGraphCondTypeWhile;
    params.conditional.size = 1;
    cudaGraphNode_t node = nullptr;
#if CUDART_VERSION >= 13000
    NBODY_CUDA_CHECK(cudaGraphAddNode(&node, graph_, nullptr, nullptr, 0, &params));
#else
    NBODY_CUDA_CHECK(cudaGraphAddNode(&node, graph_, nullptr, 0, &params));
#endif
    cudaGraph_t loop_body = params.conditional.phGraph_out[0];
    NBODY_CUDA_CHECK(
        cudaStreamBeginCaptureToGraph(stream_, loop_body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
    try {
      body(handle);
    } catch (...) {
      cudaGraph_t ignored = nullptr;
      cudaStreamEndCapture(stream_, &ignored);
      (void)cudaGetLastError();  // the failed call's error is not left for the next launch's check
      throw;
    }
    cudaGraph_t captured = nullptr;
    NBODY_CUDA_CHECK(cudaStreamEndCapture(stream_, &captured));
    NBODY_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  } catch (...) {
    cudaGraphDestroy(graph_);
    graph_ = nullptr;
    (void)cudaGetLastError();
    throw;
  }
}

WhileGraph::~WhileGraph() {
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  if (graph_ != nullptr) cudaGraphDestroy(graph_);
}

void WhileGraph::launch() { NBODY_CUDA_CHECK(cudaGraphLaunch(exec_, stream_)); }

#endif

}  // namespace nbody::cuda
