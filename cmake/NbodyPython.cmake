# The Python module (python/): pybind11 and a Python with its development headers.
# NBODY_ENABLE_PYTHON defaults to ON when both are found; asking for it when either is missing is
# a configure error. The interpreter: Python3_EXECUTABLE when given, else the first of Debian's
# /usr/bin/python3 and the python3 on PATH that has Python.h and pybind11 (Debian's
# python3-pybind11 / pybind11-dev, or a pip-installed pybind11 found through
# `python -m pybind11 --cmakedir`). The first python3 on PATH may be another Python without
# Debian's packages (pyenv, conda).
set(_nbody_py_probe "import os, sysconfig, pybind11; \
inc = sysconfig.get_paths()['include']; \
assert os.path.exists(os.path.join(inc, 'Python.h')), 'no Python.h'; \
print(pybind11.get_cmake_dir(), end='')")

function(_nbody_python_probe py out_dir)
  execute_process(COMMAND "${py}" -c "${_nbody_py_probe}" RESULT_VARIABLE rc OUTPUT_VARIABLE dir ERROR_QUIET)
  if(rc EQUAL 0 AND EXISTS "${dir}")
    set(${out_dir} "${dir}" PARENT_SCOPE)
  else()
    set(${out_dir} "" PARENT_SCOPE)
  endif()
endfunction()

set(_nbody_python_found OFF)
if(NOT DEFINED NBODY_ENABLE_PYTHON OR NBODY_ENABLE_PYTHON)
  set(_candidates)
  if(Python3_EXECUTABLE)
    list(APPEND _candidates "${Python3_EXECUTABLE}")
  else()
    if(EXISTS /usr/bin/python3)
      list(APPEND _candidates /usr/bin/python3)
    endif()
    find_program(_nbody_path_python NAMES python3 NO_CACHE)
    if(_nbody_path_python)
      list(APPEND _candidates "${_nbody_path_python}")
    endif()
  endif()
  foreach(py IN LISTS _candidates)
    _nbody_python_probe("${py}" _dir)
    if(_dir)
      set(Python3_EXECUTABLE "${py}" CACHE FILEPATH "The Python the nbody module is built for" FORCE)
      if(NOT pybind11_DIR)
        set(pybind11_DIR "${_dir}" CACHE PATH "pybind11's CMake package" FORCE)
      endif()
      break()
    endif()
  endforeach()
  if(Python3_EXECUTABLE)
    find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
    if(Python3_FOUND)
      find_package(pybind11 CONFIG QUIET)
      if(pybind11_FOUND)
        set(_nbody_python_found ON)
      endif()
    endif()
  endif()
endif()
option(NBODY_ENABLE_PYTHON "Build the Python module (pybind11)" ${_nbody_python_found})
if(NBODY_ENABLE_PYTHON AND NOT _nbody_python_found)
  message(FATAL_ERROR "NBODY_ENABLE_PYTHON=ON but no Python with development headers and pybind11 was found "
                      "(tried: ${_candidates}): run scripts/setup (Debian packages python3-dev, pybind11-dev, "
                      "python3-pybind11), give -DPython3_EXECUTABLE=..., or configure with -DNBODY_ENABLE_PYTHON=OFF.")
endif()
if(NBODY_ENABLE_PYTHON)
  message(STATUS "nbody: Python module for ${Python3_EXECUTABLE} (${Python3_VERSION}), pybind11 ${pybind11_VERSION}")
endif()
