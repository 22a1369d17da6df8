# The version string printed by `nbody --version` and written into every output: the project
# version and the git revision the build came from. NBODY_REVISION (set by scripts/device/build
# from the revision packed with the dependencies) names it where the copy's own git metadata may
# not describe the files (a copy of a working tree sent to another machine).
if(NBODY_REVISION)
  set(NBODY_GIT_REVISION "${NBODY_REVISION}")
else()
  execute_process(COMMAND git rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE NBODY_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET RESULT_VARIABLE _git_rc)
  if(NOT _git_rc EQUAL 0 OR NOT NBODY_GIT_REVISION)
    set(NBODY_GIT_REVISION "unknown")
  endif()
  execute_process(COMMAND git status --porcelain --untracked-files=no
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _git_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_git_dirty)
    string(APPEND NBODY_GIT_REVISION "-dirty")
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/include/nbody/version.hpp.in
               ${PROJECT_BINARY_DIR}/generated/nbody/version.hpp @ONLY)
