# Dependencies come from Debian packages (scripts/setup). CLI11 and toml++ are header-only; a
# machine without the packages can point CMAKE_PREFIX_PATH / CMAKE_INCLUDE_PATH at copies of
# their headers (scripts/device/pack-deps does that for the GPU machine).
# An optional feature's ON/OFF option: ON by default where what it needs was found; ON without it
# stops the configuration with one message naming the Debian packages that provide it.
function(nbody_feature_option option found doc needs)
  if(found)
    set(_default ON)
  else()
    set(_default OFF)
  endif()
  option(${option} "${doc}" ${_default})
  if(${option} AND NOT found)
    message(FATAL_ERROR "${option}=ON but ${needs} was not found: run scripts/setup or configure with -D${option}=OFF.")
  endif()
endfunction()

find_package(OpenMP REQUIRED COMPONENTS CXX)

find_path(NBODY_CLI11_INCLUDE_DIR CLI/CLI.hpp)
if(NOT NBODY_CLI11_INCLUDE_DIR)
  message(FATAL_ERROR "CLI11 headers not found: run scripts/setup (Debian package libcli11-dev)")
endif()
add_library(nbody_cli11 INTERFACE)
target_include_directories(nbody_cli11 SYSTEM INTERFACE ${NBODY_CLI11_INCLUDE_DIR})

find_path(NBODY_TOMLPP_INCLUDE_DIR toml++/toml.h)
if(NOT NBODY_TOMLPP_INCLUDE_DIR)
  message(FATAL_ERROR "toml++ headers not found: run scripts/setup (Debian package libtomlplusplus-dev)")
endif()
add_library(nbody_tomlpp INTERFACE)
target_include_directories(nbody_tomlpp SYSTEM INTERFACE ${NBODY_TOMLPP_INCLUDE_DIR})
target_compile_definitions(nbody_tomlpp INTERFACE TOML_HEADER_ONLY=1 TOML_EXCEPTIONS=1)

# muparser (Debian libmuparser-dev): the PIC deck's density expressions (pic/physics/density_expression.*).
# Header and shared library where CMake looks (CMAKE_INCLUDE_PATH, CMAKE_LIBRARY_PATH: .deps/ on
# the GPU machine, scripts/device/pack-deps).
find_path(NBODY_MUPARSER_INCLUDE_DIR muParser.h)
find_library(NBODY_MUPARSER_LIBRARY muparser)
if(NOT NBODY_MUPARSER_INCLUDE_DIR OR NOT NBODY_MUPARSER_LIBRARY)
  message(FATAL_ERROR "muparser not found: run scripts/setup (Debian package libmuparser-dev)")
endif()
add_library(nbody_muparser UNKNOWN IMPORTED)
set_target_properties(nbody_muparser PROPERTIES IMPORTED_LOCATION "${NBODY_MUPARSER_LIBRARY}"
                      INTERFACE_INCLUDE_DIRECTORIES "${NBODY_MUPARSER_INCLUDE_DIR}")

if(NBODY_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    if(NBODY_GTEST_SOURCE_DIR AND EXISTS "${NBODY_GTEST_SOURCE_DIR}/CMakeLists.txt")
      set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
      set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
      add_subdirectory(${NBODY_GTEST_SOURCE_DIR} ${CMAKE_BINARY_DIR}/_gtest EXCLUDE_FROM_ALL)
      add_library(GTest::gtest ALIAS gtest)
      add_library(GTest::gtest_main ALIAS gtest_main)
    else()
      message(FATAL_ERROR "GoogleTest not found: run scripts/setup (libgtest-dev) or set NBODY_GTEST_SOURCE_DIR")
    endif()
  endif()
endif()

# HDF5 (the C library) for GADGET-4 snapshots. NBODY_ENABLE_HDF5 defaults to ON when HDF5 is
# found; asking for it when it is missing is a configure error. Without it, everything else
# builds and the hdf5 snapshot format is simply not offered.
# Parallel HDF5 (MPI-IO; Debian: libhdf5-openmpi-dev, installed beside the serial libhdf5-dev):
# FindHDF5 is asked to prefer it (h5pcc over h5cc) unless MPI or NBODY_HDF5_PARALLEL is switched
# off; whichever it finds, HDF5_IS_PARALLEL says which it is (see NBODY_HDF5_PARALLEL below).
if((NOT DEFINED NBODY_ENABLE_MPI OR NBODY_ENABLE_MPI) AND (NOT DEFINED NBODY_HDF5_PARALLEL OR NBODY_HDF5_PARALLEL))
  set(HDF5_PREFER_PARALLEL TRUE)
else()
  set(HDF5_PREFER_PARALLEL FALSE)
endif()
if(NOT DEFINED NBODY_ENABLE_HDF5 OR NBODY_ENABLE_HDF5)
  enable_language(C)  # FindHDF5 test-compiles a C program
  find_package(HDF5 COMPONENTS C QUIET)
endif()
nbody_feature_option(NBODY_ENABLE_HDF5 "${HDF5_FOUND}" "Write and read HDF5 snapshots (GADGET-4 layout)"
                     "the HDF5 C library (Debian libhdf5-dev)")

# MPI (Debian: libopenmpi-dev, openmpi-bin) for runs over several processes and nodes.
# NBODY_ENABLE_MPI defaults to ON when MPI is found; asking for it when it is missing is a
# configure error. Without it the program runs as one process (and refuses to be started by
# mpirun with more than one).
if(NOT DEFINED NBODY_ENABLE_MPI OR NBODY_ENABLE_MPI)
  find_package(MPI COMPONENTS CXX QUIET)
endif()
if(MPI_CXX_FOUND)
  set(_nbody_mpi_default ON)
else()
  set(_nbody_mpi_default OFF)
endif()
option(NBODY_ENABLE_MPI "Run over several processes and nodes with MPI" ${_nbody_mpi_default})
if(NBODY_ENABLE_MPI AND NOT MPI_CXX_FOUND)
  message(FATAL_ERROR "NBODY_ENABLE_MPI=ON but MPI was not found: run scripts/setup (Debian packages "
                      "libopenmpi-dev openmpi-bin) or configure with -DNBODY_ENABLE_MPI=OFF.")
endif()
if(NBODY_ENABLE_MPI)
  find_program(NBODY_MPIEXEC NAMES mpirun mpiexec HINTS ${MPIEXEC_EXECUTABLE})
endif()

# A parallel HDF5's headers include mpi.h: every user of HDF5::HDF5 gets MPI's C interface.
if(NBODY_ENABLE_HDF5 AND HDF5_IS_PARALLEL)
  find_package(MPI COMPONENTS C REQUIRED)
  set_property(TARGET HDF5::HDF5 APPEND PROPERTY INTERFACE_LINK_LIBRARIES MPI::MPI_C)
endif()

# Snapshots written collectively by every rank (MPI-IO) when HDF5 was built with MPI and this
# build has MPI; otherwise rank 0 writes them alone (every rank holds every body).
# NBODY_HDF5_PARALLEL defaults to ON when both are there; asking for it without them is a
# configure error. (The sanitizer preset turns it off: it runs no MPI tests.)
if(NBODY_ENABLE_HDF5 AND HDF5_IS_PARALLEL AND NBODY_ENABLE_MPI)
  set(_nbody_hdf5_parallel_default ON)
else()
  set(_nbody_hdf5_parallel_default OFF)
endif()
option(NBODY_HDF5_PARALLEL "Write HDF5 snapshots collectively over the MPI ranks (parallel HDF5)"
       ${_nbody_hdf5_parallel_default})
if(NBODY_HDF5_PARALLEL AND NOT (NBODY_ENABLE_HDF5 AND HDF5_IS_PARALLEL AND NBODY_ENABLE_MPI))
  message(FATAL_ERROR "NBODY_HDF5_PARALLEL=ON needs MPI and an HDF5 built with MPI-IO (Debian: libhdf5-openmpi-dev; "
                      "found HDF5_IS_PARALLEL=${HDF5_IS_PARALLEL}, NBODY_ENABLE_MPI=${NBODY_ENABLE_MPI}), or "
                      "configure with -DNBODY_HDF5_PARALLEL=OFF.")
endif()

# NCCL (not in Debian; on GPU machines with NVIDIA's packages) moves device buffers between the
# GPUs of a run. It needs CUDA and MPI (which hands out NCCL's unique id). NBODY_ENABLE_NCCL
# defaults to ON when nccl.h and libnccl are found beside CUDA and MPI; asking for it when they
# are missing is a configure error. Without it the GPU runs over several ranks stage device
# buffers through host memory and MPI. NCCL_ROOT or NCCL_HOME may point at an install.
if(NOT DEFINED NBODY_ENABLE_NCCL OR NBODY_ENABLE_NCCL)
  find_path(NBODY_NCCL_INCLUDE_DIR nccl.h HINTS $ENV{NCCL_ROOT} $ENV{NCCL_HOME} ${CUDAToolkit_INCLUDE_DIRS}
            PATH_SUFFIXES include)
  find_library(NBODY_NCCL_LIBRARY nccl HINTS $ENV{NCCL_ROOT} $ENV{NCCL_HOME} ${CUDAToolkit_LIBRARY_DIR}
               PATH_SUFFIXES lib lib64)
endif()
if(NBODY_NCCL_INCLUDE_DIR AND NBODY_NCCL_LIBRARY AND NBODY_ENABLE_CUDA AND NBODY_ENABLE_MPI)
  set(_nbody_nccl_default ON)
else()
  set(_nbody_nccl_default OFF)
endif()
option(NBODY_ENABLE_NCCL "Move GPU buffers between ranks with NCCL" ${_nbody_nccl_default})
if(NBODY_ENABLE_NCCL)
  if(NOT NBODY_ENABLE_CUDA OR NOT NBODY_ENABLE_MPI)
    message(FATAL_ERROR "NBODY_ENABLE_NCCL=ON needs NBODY_ENABLE_CUDA=ON and NBODY_ENABLE_MPI=ON.")
  endif()
  if(NOT NBODY_NCCL_INCLUDE_DIR OR NOT NBODY_NCCL_LIBRARY)
    message(FATAL_ERROR "NBODY_ENABLE_NCCL=ON but NCCL (nccl.h, libnccl) was not found: set NCCL_ROOT to its "
                        "install or configure with -DNBODY_ENABLE_NCCL=OFF.")
  endif()
  add_library(nbody_nccl INTERFACE)
  target_include_directories(nbody_nccl SYSTEM INTERFACE ${NBODY_NCCL_INCLUDE_DIR})
  target_link_libraries(nbody_nccl INTERFACE ${NBODY_NCCL_LIBRARY})
endif()

# The renderer (src/render/): libpng (FindPNG; Debian libpng-dev) and cairo (pkg-config; Debian
# libcairo2-dev). NBODY_ENABLE_RENDER defaults to ON when both are found; without them (the GPU
# machines have neither) everything else builds and a PIC run asking for images
# (output.images_every > 0) is refused up front.
find_package(PNG QUIET)
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(NBODY_CAIRO QUIET IMPORTED_TARGET cairo)
endif()
# Without pkg-config (or its cairo.pc), cairo's header and library where CMake looks for them
# (CMAKE_INCLUDE_PATH, CMAKE_LIBRARY_PATH): the same imported target.
if(NOT NBODY_CAIRO_FOUND)
  find_path(NBODY_CAIRO_INCLUDE_DIR cairo.h PATH_SUFFIXES cairo)
  find_library(NBODY_CAIRO_LIBRARY cairo)
  if(NBODY_CAIRO_INCLUDE_DIR AND NBODY_CAIRO_LIBRARY)
    add_library(PkgConfig::NBODY_CAIRO UNKNOWN IMPORTED)
    set_target_properties(PkgConfig::NBODY_CAIRO PROPERTIES IMPORTED_LOCATION "${NBODY_CAIRO_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${NBODY_CAIRO_INCLUDE_DIR}")
    set(NBODY_CAIRO_FOUND TRUE)
  endif()
endif()
if(PNG_FOUND AND NBODY_CAIRO_FOUND)
  set(_nbody_render_found TRUE)
else()
  set(_nbody_render_found FALSE)
endif()
nbody_feature_option(NBODY_ENABLE_RENDER "${_nbody_render_found}"
                     "Build the renderer (PNG images and figures; needs libpng and cairo)"
                     "libpng or cairo (Debian libpng-dev, libcairo2-dev)")
if(NOT NBODY_ENABLE_RENDER)
  message(STATUS "Renderer off (libpng: ${PNG_FOUND}, cairo: ${NBODY_CAIRO_FOUND}): no images; "
                 "a PIC run with output.images_every > 0 is refused")
endif()

# The browser viewer's server (`nbody view`, src/view/server.cpp): cpp-httplib through pkg-config
# (Debian libcpp-httplib-dev, a header and a shared library). NBODY_ENABLE_VIEW defaults to ON
# when it is found; without it everything else builds and `nbody view` is refused with one line.
if(PKG_CONFIG_FOUND)
  pkg_check_modules(NBODY_HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
endif()
nbody_feature_option(NBODY_ENABLE_VIEW "${NBODY_HTTPLIB_FOUND}"
                     "Build the browser viewer's server (nbody view; needs cpp-httplib)"
                     "cpp-httplib (Debian libcpp-httplib-dev)")
if(NOT NBODY_ENABLE_VIEW)
  message(STATUS "Viewer off (cpp-httplib: ${NBODY_HTTPLIB_FOUND}): nbody view is refused")
endif()
