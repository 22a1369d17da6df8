# CUDA is optional. NBODY_ENABLE_CUDA defaults to ON when a CUDA compiler is found;
# asking for it explicitly when the toolkit is missing is a configure error.
include(CheckLanguage)
if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS "/usr/local/cuda/bin/nvcc")
  set(CMAKE_CUDA_COMPILER "/usr/local/cuda/bin/nvcc" CACHE FILEPATH "CUDA compiler")
endif()
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  set(_nbody_cuda_default ON)
else()
  set(_nbody_cuda_default OFF)
endif()
option(NBODY_ENABLE_CUDA "Build the CUDA backends" ${_nbody_cuda_default})

if(NBODY_ENABLE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "NBODY_ENABLE_CUDA=ON but no CUDA compiler was found. "
                        "Install the CUDA toolkit or configure with -DNBODY_ENABLE_CUDA=OFF.")
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80 90)
  endif()
  enable_language(CUDA)
  # CMake 3.25's tables do not know nvcc's C++20 flag; teach it (newer CMake knows it already).
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
  # -lineinfo lets Nsight Compute map SASS back to source lines at no run-time cost.
  string(APPEND CMAKE_CUDA_FLAGS " -lineinfo --expt-relaxed-constexpr")
endif()

