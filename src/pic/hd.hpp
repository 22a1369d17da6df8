#pragma once
// PIC_HD marks the physics functors that the CPU loops and the CUDA kernels share.
#if defined(__CUDACC__)
#define PIC_HD __host__ __device__ inline
#else
#define PIC_HD inline
#endif
