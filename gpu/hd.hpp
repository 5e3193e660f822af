// One spelling for code that compiles both for the host (g++ or nvcc's host pass) and for the
// device (nvcc's device pass). Every header under gpu/ that holds arithmetic or a kernel body
// uses only C2_HD functions and plain integer types, so that the host tests (built with g++
// everywhere, with or without CUDA) exercise the very code the kernels run.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define C2_HD __host__ __device__ __forceinline__
#define C2_HD_NOINLINE __host__ __device__
#else
#define C2_HD inline
#define C2_HD_NOINLINE inline
#endif

#if defined(__CUDA_ARCH__)
#define C2_UNROLL _Pragma("unroll")
#else
#define C2_UNROLL
#endif
