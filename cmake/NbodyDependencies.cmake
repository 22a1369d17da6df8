# Dependencies come from Debian packages (scripts/setup). CLI11 and toml++ are header-only; a
# machine without the packages can point CMAKE_PREFIX_PATH / CMAKE_INCLUDE_PATH at copies of
# their headers (scripts/device/pack-deps does that for the GPU machine).
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
if(NOT DEFINED NBODY_ENABLE_HDF5 OR NBODY_ENABLE_HDF5)
  enable_language(C)  # FindHDF5 test-compiles a C program
  find_package(HDF5 COMPONENTS C QUIET)
endif()
if(HDF5_FOUND)
  set(_nbody_hdf5_default ON)
else()
  set(_nbody_hdf5_default OFF)
endif()
option(NBODY_ENABLE_HDF5 "Write and read HDF5 snapshots (GADGET-4 layout)" ${_nbody_hdf5_default})
if(NBODY_ENABLE_HDF5 AND NOT HDF5_FOUND)
  message(FATAL_ERROR "NBODY_ENABLE_HDF5=ON but the HDF5 C library was not found: run scripts/setup "
                      "(Debian package libhdf5-dev) or configure with -DNBODY_ENABLE_HDF5=OFF.")
endif()
