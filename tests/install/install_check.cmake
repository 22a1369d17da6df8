# The engine as a library, installed: `cmake --install` of the build tree into a fresh prefix, then
# a project of its own (tests/install/consumer/) configured with find_package(nbody) against that
# prefix alone, built with the build's compiler and flags (the sanitizers' too) and run; the
# installed program answers --version.
#   cmake -DSOURCE_DIR=... -DBUILD_DIR=... -DCONSUMER_DIR=... -DWORK_DIR=... -DVERSION=... -DCXX_COMPILER=...
#         -DCXX_FLAGS=... -DLINKER_FLAGS=... -DBUILD_TYPE=... -DGENERATOR=... -DMAKE_PROGRAM=...
#         -P install_check.cmake
foreach(var SOURCE_DIR BUILD_DIR CONSUMER_DIR WORK_DIR VERSION CXX_COMPILER GENERATOR)
  if(NOT ${var})
    message(FATAL_ERROR "install_check.cmake: -D${var}=... is missing")
  endif()
endforeach()

function(run_step name)
  string(TIMESTAMP start "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(WRITE "${WORK_DIR}/${name}.log" "${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} failed (${rc}): ${ARGN}\n${out}${err}")
  endif()
  string(TIMESTAMP end "%s")
  math(EXPR seconds "${end} - ${start}")
  message(STATUS "${name}: ${seconds} s")
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

run_step(install ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")

file(GLOB_RECURSE config_files "${prefix}/*/nbodyConfig.cmake")
file(GLOB_RECURSE archives "${prefix}/*/libnbody_core.a" "${prefix}/*/libnbody_core.so")
foreach(path "${prefix}/bin/nbody" "${prefix}/include/nbody/simulation.hpp" "${prefix}/include/nbody/version.hpp"
             "${prefix}/share/nbody/plot.py")
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "not installed: ${path}")
  endif()
endforeach()
list(LENGTH config_files n_configs)
list(LENGTH archives n_archives)
if(NOT n_configs EQUAL 1 OR NOT n_archives EQUAL 1)
  message(FATAL_ERROR "expected one nbodyConfig.cmake and one libnbody_core under ${prefix}, found: ${config_files} ${archives}")
endif()
# The public headers are include/nbody/*.hpp and the generated version.hpp, no more (src/ is the
# library's own).
file(GLOB_RECURSE installed_headers RELATIVE "${prefix}/include" "${prefix}/include/*")
file(GLOB public_headers RELATIVE "${SOURCE_DIR}/include" "${SOURCE_DIR}/include/nbody/*.hpp")
list(APPEND public_headers nbody/version.hpp)
list(SORT installed_headers)
list(SORT public_headers)
if(NOT installed_headers STREQUAL public_headers)
  message(FATAL_ERROR "installed headers: ${installed_headers}; the public ones: ${public_headers}")
endif()

run_step(program "${prefix}/bin/nbody" --version)
if(NOT step_output MATCHES "${VERSION}")
  message(FATAL_ERROR "installed nbody --version printed '${step_output}', not version ${VERSION}")
endif()

# Only the fresh prefix is searched (no system-wide or user package registry).
set(consumer_args -S "${CONSUMER_DIR}" -B "${WORK_DIR}/consumer" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
if(BUILD_TYPE)
  list(APPEND consumer_args "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
endif()
if(MAKE_PROGRAM)
  list(APPEND consumer_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
run_step(consumer_configure ${CMAKE_COMMAND} ${consumer_args})
file(STRINGS "${WORK_DIR}/consumer/CMakeCache.txt" found_dir REGEX "^nbody_DIR:")
get_filename_component(expected_dir "${config_files}" DIRECTORY)
if(NOT found_dir STREQUAL "nbody_DIR:PATH=${expected_dir}")
  message(FATAL_ERROR "the consumer found nbody elsewhere: ${found_dir}, not ${expected_dir}")
endif()
run_step(consumer_build ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
run_step(consumer_run "${WORK_DIR}/consumer/consumer")
message(STATUS "${step_output}")
if(NOT step_output MATCHES "consumer: all checks passed")
  message(FATAL_ERROR "the consumer did not report success")
endif()
