# Runs `nbody bench --suite ensemble --quick` over three sizes (a group of 4 lanes, of 16, and a
# warp's global-memory path) and each GPU shape, and checks that every batched GPU record found
# system 0 with the CPU path's bits after the timed steps (the promise of docs/ensembles.md,
# "Reproducibility"), and that its rate is positive. Without a CUDA device the batched records
# are skipped and so is this test (SKIP_REGULAR_EXPRESSION).
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${NBODY} bench --suite ensemble --quick --ensemble-sizes 3,16,40 --ensemble-counts 100
                        --ensemble-shape auto,warp,block --json ${OUT}/ensemble.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nbody bench --suite ensemble exited ${rc}: ${err}")
endif()
if(out MATCHES "no usable CUDA device")
  message("no usable CUDA device: the batched records were skipped")
  return()
endif()
file(READ ${OUT}/ensemble.json json)
string(JSON count LENGTH "${json}" results)
set(batched 0)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON rung GET "${json}" results ${i} rung)
  if(NOT rung STREQUAL "gpu-batched")
    continue()
  endif()
  math(EXPR batched "${batched} + 1")
  string(JSON shape GET "${json}" results ${i} launch_shape)
  string(JSON n GET "${json}" results ${i} n)
  string(JSON verified GET "${json}" results ${i} verified)
  string(JSON note GET "${json}" results ${i} verification)
  if(NOT verified)
    message(FATAL_ERROR "gpu-batched n=${n} (${shape}): ${note}")
  endif()
endforeach()
if(NOT batched EQUAL 9)
  message(FATAL_ERROR "${batched} gpu-batched records (expected 3 sizes x 3 shapes)")
endif()
