#pragma once
// CUDA IPC between the ranks of one node: the handle of a device allocation of this process, and
// another process's allocation mapped into this one (peer access where the GPUs differ); a
// mapping that fails is one clear error naming `what` (exchange.cu).
#include <cuda_runtime.h>

#include <string>

namespace nbody::pic {

[[nodiscard]] cudaIpcMemHandle_t ipc_handle(void* p);
[[nodiscard]] void* ipc_map(const cudaIpcMemHandle_t& h, const std::string& what);

}  // namespace nbody::pic
