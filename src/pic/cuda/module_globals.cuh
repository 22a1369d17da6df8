#pragma once
// Included first by the files whose kernels call the math library's double sin and cos (the
// particle kernels, Mur's laser boundary): the device globals that the CUB and Thrust headers
// define (libcu++'s customisation point objects), as many as in the one file that held every PIC
// kernel before. A kernel reads the addresses of the math library's tables from the module's table
// of global addresses (constant bank 4), after the module's own globals; with as many globals
// before them, each kernel's code is the same bytes in whichever file launches it
// (scripts/sass_fingerprint.py).
#include <cuda/std/optional>
#include <thrust/iterator/counting_iterator.h>
