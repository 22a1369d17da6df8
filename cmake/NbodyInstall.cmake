# `cmake --install <build> [--prefix P]` installs the program (bin/nbody), the library nbody_core
# (lib/libnbody_core.a) with the public headers (include/nbody/: include/nbody/ of the sources and
# the generated version.hpp) and a CMake package (lib/cmake/nbody/), so that another project
# builds against the engine:
#   find_package(nbody 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE nbody::nbody)
# nbodyConfig.cmake finds the library's dependencies again as this build had them (OpenMP, zlib,
# the CUDA runtime, MPI, HDF5 and its MPI flavour, NCCL). src/ (nbody_pic, the internals) is not
# installed: the public API is include/nbody/ alone. tests/install/ checks all of it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NBODY_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/nbody" CACHE STRING
    "Where the CMake package (nbodyConfig.cmake) is installed, relative to the prefix")
mark_as_advanced(NBODY_INSTALL_CMAKEDIR)

# The library is nbody::nbody to its users, installed or in the same build.
set_target_properties(nbody_core PROPERTIES EXPORT_NAME nbody)
add_library(nbody::nbody ALIAS nbody_core)

# The installed program finds the shared libraries it was linked with outside the system's
# directories (the CUDA runtime under /usr/local/cuda) as the built one does.
set_target_properties(nbody PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS nbody RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# What `nbody plot` runs, at <bin>/../share/nbody/plot.py (cli/python_program.hpp).
install(FILES ${PROJECT_SOURCE_DIR}/python/nbody/plot.py DESTINATION ${CMAKE_INSTALL_DATADIR}/nbody)
install(TARGETS nbody_core EXPORT nbodyTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nbody DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/generated/nbody/version.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nbody)
install(EXPORT nbodyTargets NAMESPACE nbody:: DESTINATION ${NBODY_INSTALL_CMAKEDIR})

# What nbodyConfig.cmake must find again: the choices of this build.
if(NBODY_ENABLE_NCCL)
  get_filename_component(NBODY_NCCL_LIBRARY_DIR "${NBODY_NCCL_LIBRARY}" DIRECTORY)
endif()
if(NBODY_ENABLE_CUDA)
  get_filename_component(NBODY_CUDA_TOOLKIT_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
endif()
if(NBODY_ENABLE_HDF5 AND HDF5_IS_PARALLEL)
  set(NBODY_HDF5_IS_PARALLEL ON)
else()
  set(NBODY_HDF5_IS_PARALLEL OFF)
endif()
# (src/ found zlib in its own directory scope: its link line says whether.)
get_target_property(_nbody_core_links nbody_core LINK_LIBRARIES)
if("ZLIB::ZLIB" IN_LIST _nbody_core_links)
  set(NBODY_WITH_ZLIB ON)
else()
  set(NBODY_WITH_ZLIB OFF)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/nbodyConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/nbodyConfig.cmake
  INSTALL_DESTINATION ${NBODY_INSTALL_CMAKEDIR})
# Before 1.0 a minor version may change the API: 0.1.x satisfies a request for 0.1 only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/nbodyConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/nbodyConfig.cmake
              ${PROJECT_BINARY_DIR}/package/nbodyConfigVersion.cmake
  DESTINATION ${NBODY_INSTALL_CMAKEDIR})

# The viewer's page beside the installed program (`nbody view` looks in <prefix>/share/nbody/web,
# src/view/web_dir.cpp): the page and the three.js files it loads, with three.js's licence
# (OPTIONAL: a tree where scripts/setup has not run npm ci has none; the program then says so).
if(NBODY_ENABLE_VIEW)
  set(_nbody_web ${CMAKE_INSTALL_DATADIR}/nbody/web)
  set(_nbody_three ${PROJECT_SOURCE_DIR}/web/node_modules/three)
  install(FILES ${PROJECT_SOURCE_DIR}/web/index.html ${PROJECT_SOURCE_DIR}/web/viewer.js DESTINATION ${_nbody_web})
  install(FILES ${_nbody_three}/LICENSE DESTINATION ${_nbody_web}/node_modules/three OPTIONAL)
  install(FILES ${_nbody_three}/build/three.module.js ${_nbody_three}/build/three.core.js
          DESTINATION ${_nbody_web}/node_modules/three/build OPTIONAL)
  install(FILES ${_nbody_three}/examples/jsm/controls/OrbitControls.js
          DESTINATION ${_nbody_web}/node_modules/three/examples/jsm/controls OPTIONAL)
endif()
