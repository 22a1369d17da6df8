#pragma once
// One field of a particle store as an array object other libraries can read without a copy:
// __cuda_array_interface__ (version 3; CuPy, Numba, PyTorch) for a store on a GPU, DLPack
// (__dlpack__, __dlpack_device__; PyTorch, JAX, CuPy, numpy) for either, and to_numpy(), a copy.
// It keeps the simulation that owns the memory alive.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "common.hpp"
#include "particles/memory.hpp"

namespace nbody::py {

struct DeviceArray {
  std::shared_ptr<void> owner;  // keeps the memory alive
  void* data = nullptr;
  std::size_t n = 0;
  char kind = 'f';  // 'f' float, 'u' unsigned
  int bytes = 8;    // per value
  Location where;
  StreamHandle stream = nullptr;
  bool readonly = false;
};

}  // namespace nbody::py
