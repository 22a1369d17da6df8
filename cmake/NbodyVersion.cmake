# The version string printed by `nbody --version` and written into every output: the project
# version and the git revision the build came from.
execute_process(COMMAND git rev-parse --short=12 HEAD
                WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                OUTPUT_VARIABLE NBODY_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE _git_rc)
if(NOT _git_rc EQUAL 0 OR NOT NBODY_GIT_REVISION)
  # A copy without .git (the GPU machine) may carry the revision in a file.
  if(EXISTS ${PROJECT_SOURCE_DIR}/.deps/REVISION)
    file(STRINGS ${PROJECT_SOURCE_DIR}/.deps/REVISION NBODY_GIT_REVISION LIMIT_COUNT 1)
  else()
    set(NBODY_GIT_REVISION "unknown")
  endif()
endif()
execute_process(COMMAND git status --porcelain --untracked-files=no
                WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                OUTPUT_VARIABLE _git_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(_git_dirty)
  string(APPEND NBODY_GIT_REVISION "-dirty")
endif()
configure_file(${PROJECT_SOURCE_DIR}/include/nbody/version.hpp.in
               ${PROJECT_BINARY_DIR}/generated/nbody/version.hpp @ONLY)
