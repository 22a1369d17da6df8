// The GPU tree in a build without CUDA: it says so.
#include "gravity/tree/cuda_tree.hpp"
#include "nbody/error.hpp"

namespace nbody::gravity::tree {

struct CudaTree::Impl {
  TreeStats stats;
};

bool cuda_tree_available(std::string* why) {
  if (why) *why = "this build of nbody has no CUDA support (configure with -DNBODY_ENABLE_CUDA=ON)";
  return false;
}

CudaTree::CudaTree(const GravityParams&, const TreeParams&, int) {
  throw_input_error("gravity tree: the GPU tree needs a build with CUDA (configure with -DNBODY_ENABLE_CUDA=ON)");
}
CudaTree::~CudaTree() = default;
Octree CudaTree::octree() const { return {}; }
std::vector<std::int32_t> CudaTree::index() const { return {}; }
std::vector<std::pair<std::int32_t, std::int32_t>> CudaTree::groups() const { return {}; }
const TreeStats& CudaTree::stats() const noexcept { return impl_->stats; }
std::vector<double> CudaTree::history() const { return {}; }
std::vector<double> CudaTree::used_history() const { return {}; }
void CudaTree::set_history(const std::vector<double>&) {}

template <class T>
void CudaTree::accelerations_device(const T*, const T*, const T*, const T*, int, T*, T*, T*) {}
template <class T>
void CudaTree::potentials_device(const T*, const T*, const T*, const T*, int, double*) {}
std::size_t CudaTree::device_bytes(std::size_t, const TreeParams&) { return 0; }
template <class T>
void CudaTree::accelerations(const std::vector<T>&, const std::vector<T>&, const std::vector<T>&, const std::vector<T>&,
                             std::vector<T>&, std::vector<T>&, std::vector<T>&) {}
template <class T>
void CudaTree::potentials(const std::vector<T>&, const std::vector<T>&, const std::vector<T>&, const std::vector<T>&,
                          std::vector<double>&) {}

#define NBODY_CUDA_TREE(T)                                                                                          \
  template void CudaTree::accelerations_device<T>(const T*, const T*, const T*, const T*, int, T*, T*, T*);         \
  template void CudaTree::potentials_device<T>(const T*, const T*, const T*, const T*, int, double*);            \
  template void CudaTree::accelerations<T>(const std::vector<T>&, const std::vector<T>&, const std::vector<T>&,     \
                                           const std::vector<T>&, std::vector<T>&, std::vector<T>&, std::vector<T>&); \
  template void CudaTree::potentials<T>(const std::vector<T>&, const std::vector<T>&, const std::vector<T>&,        \
                                        const std::vector<T>&, std::vector<double>&);
NBODY_CUDA_TREE(float)
NBODY_CUDA_TREE(double)

}  // namespace nbody::gravity::tree
