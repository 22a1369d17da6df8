#pragma once
// PIC_HD marks the physics functors that the CPU loops and the CUDA kernels share.
#if defined(__CUDACC__)
#define PIC_HD __host__ __device__ inline
#else
#define PIC_HD inline
#endif

// PIC_UNROLL asks nvcc's device pass to unroll the next loop (nothing for the host compiler).
#if defined(__CUDA_ARCH__)
#define PIC_UNROLL _Pragma("unroll")
#else
#define PIC_UNROLL
#endif
