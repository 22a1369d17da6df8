#pragma once
// Marks for code written once for the CPU loops and the CUDA kernels. The host compiler sees
// plain inline functions, so the CPU-only build needs no CUDA headers.

// NBODY_HD: host and device, always inlined. The gravity pair laws, the tree's geometry, the
// particle views and the element-wise functors: the kernels' inner loops, where a call that
// nvcc declined to inline would cost registers and a stack frame per body.
#if defined(__CUDACC__)
#define NBODY_HD __host__ __device__ __forceinline__
#else
#define NBODY_HD inline
#endif

// NBODY_HD_INLINE: host and device, inlined where the compiler finds it pays (the counter-based
// random numbers).
#if defined(__CUDACC__)
#define NBODY_HD_INLINE __host__ __device__ inline
#else
#define NBODY_HD_INLINE inline
#endif

// PIC_HD: the particle-in-cell physics' spelling of NBODY_HD_INLINE (its functors are left to
// the compiler's inlining too).
#define PIC_HD NBODY_HD_INLINE

// PIC_UNROLL asks nvcc's device pass to unroll the next loop (nothing for the host compiler).
#if defined(__CUDA_ARCH__)
#define PIC_UNROLL _Pragma("unroll")
#else
#define PIC_UNROLL
#endif
