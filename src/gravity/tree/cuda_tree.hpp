#pragma once
// The Barnes-Hut tree on a CUDA device: the CPU oracle's algorithm (cpu_tree.hpp) step by step
// on the GPU, so that its tree and interaction lists are the oracle's:
//   keys      the bounding cube (a reduction), Morton keys (keys.hpp)
//   sort      CUB's radix sort of (key, index): stable, so equal keys keep the index order, as
//             the oracle's sort by (key, index)
//   build     level by level, breadth first: a cell's children counted (binary searches of the
//             octant boundaries in its key range), an exclusive scan gives their places, so the
//             cells come in the oracle's order
//   multipoles  bottom-up a level at a time, float64, the oracle's formulas (multipole.hpp)
//   groups    the oracle's key-ordered ranges of at most group_size bodies within one cell
//   walk      one warp a group: the group's box, then the tree breadth first, each lane testing a
//             cell (opening.hpp), accepted cells and opened leaves' bodies appended to the warp's
//             lists (ballots), the lists evaluated with every lane a target (multipole.hpp and the
//             direct sum's pair laws), in the arithmetic T (float or double)
// Deterministic: every sum of a target is taken in its list's order, the lists do not depend on
// timing. This header has no CUDA types; without CUDA the class says so.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gravity/params.hpp"
#include "gravity/tree/cpu_tree.hpp"
#include "gravity/tree/params.hpp"

namespace nbody::gravity::tree {

// True when a CUDA device can run the tree (and the build has CUDA); otherwise *why says why.
bool cuda_tree_available(std::string* why = nullptr);

class CudaTree {
 public:
  CudaTree(const GravityParams& g, const TreeParams& p, int device = 0);
  ~CudaTree();
  CudaTree(const CudaTree&) = delete;
  CudaTree& operator=(const CudaTree&) = delete;

  // The accelerations (G included) of every source from every source; device arrays of n
  // values each. The targets are the sources.
  template <class T>
  void accelerations_device(const T* x, const T* y, const T* z, const T* m, int n, T* ax, T* ay, T* az);
  // The potentials (G included, each body's own term left out) of every source, device arrays;
  // phi: n doubles on the device. Leaves the relative criterion's history alone.
  template <class T>
  void potentials_device(const T* x, const T* y, const T* z, const T* m, int n, double* phi);
  // Device bytes the tree allocates for n bodies (an estimate from above, for memory checks).
  [[nodiscard]] static std::size_t device_bytes(std::size_t n, const TreeParams& p);
  // The same from and to host arrays (copies; for tests and small runs).
  template <class T>
  void accelerations(const std::vector<T>& x, const std::vector<T>& y, const std::vector<T>& z,
                     const std::vector<T>& m, std::vector<T>& ax, std::vector<T>& ay, std::vector<T>& az);
  // The potentials (G included, each body's own term left out), from host arrays.
  template <class T>
  void potentials(const std::vector<T>& x, const std::vector<T>& y, const std::vector<T>& z,
                  const std::vector<T>& m, std::vector<double>& phi);

  // The last tree, copied to the host (its topology, boxes and multipoles), and the sorted
  // order: sorted position k holds body index()[k].
  [[nodiscard]] Octree octree() const;
  [[nodiscard]] std::vector<std::int32_t> index() const;
  // The groups of the last walk: [begin, end) in sorted positions.
  [[nodiscard]] std::vector<std::pair<std::int32_t, std::int32_t>> groups() const;
  [[nodiscard]] const TreeStats& stats() const noexcept;
  // The relative criterion's history (CpuTree::history): the last acceleration pass's |a| by
  // body, copied to the host (empty before the first pass, and with Barnes-Hut); set_history
  // puts one back for the next pass (empty: forgotten, the next pass is Barnes-Hut).
  [[nodiscard]] std::vector<double> history() const;
  // The history the last acceleration pass read (CpuTree::used_history; empty: none).
  [[nodiscard]] std::vector<double> used_history() const;
  void set_history(const std::vector<double>& h);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbody::gravity::tree

namespace nbody {
class DeviceContext;
// The GPU tree as a force solver (--gravity tree --device cuda): the state's arithmetic T for
// the multipole and pair terms (float for fp32, double for fp64), accelerations and potentials of
// the device-resident sources, no jerks. Throws an input error when the tree's arrays, the store
// (other_bytes) and the walk's scratch do not fit in the device's free memory.
template <class T>
[[nodiscard]] std::unique_ptr<ForceSolver<T>> make_cuda_tree_solver(const std::shared_ptr<DeviceContext>& device,
                                                                    std::size_t n, const GravityParams& g,
                                                                    const gravity::tree::TreeParams& p,
                                                                    std::size_t other_bytes);
}  // namespace nbody
