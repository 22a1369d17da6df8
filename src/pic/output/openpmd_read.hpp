#pragma once
// Reads a state back from an openPMD dump of write_openpmd (openpmd.hpp): the meshes E and B and
// every species' particles (positions, momenta, weights), the step and the time, into a
// simulation built from the run's own deck without particles (build_pic_simulation(c, false)).
// What the images of a state need (images.hpp): `nbody render` of a PIC run draws from it. J and
// rho are not read (rho is recomputed from the particles where an image needs it); nor the ids.
//
// Positions, momenta and fields come back with the bits they were written with. The weights are
// stored as real particles in a box 1 m deep (w times n_c (c/omega0)^2 x 1 m, openPMD's
// weighting with unitSI 1) and come back divided by that factor: a weight w' whose product with
// it is the stored number, w itself or a neighbour of it within an ulp.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pic/cpu/simulation.hpp"

namespace nbody::pic {

// Fills `sim` (fields E, B on the nodes 0..nx x 0..ny, each species' particles, the time and the
// step) from the dump at `path`. An input error naming the file and what is wrong: not an HDF5
// file, no iteration, a grid of another size, a species of the deck missing from the file or one
// the deck has not. In a build without HDF5, an input error saying so.
void read_openpmd(const std::string& path, PicSimulation& sim);

// What a dump holds, whatever its selection (openpmd_selection.hpp): the step, the mesh
// components by the grid's names (Ex .. Bz, Jx .. Jz, rho) and, per species written, its
// particles' x positions and ids (ids empty without an id record; has_ids says which).
struct OpenPmdContents {
  std::int64_t step = 0;
  std::vector<std::string> fields;
  struct Particles {
    std::vector<double> x;
    std::vector<std::uint64_t> ids;
    bool has_ids = false;
  };
  std::map<std::string, Particles> species;
};
OpenPmdContents read_openpmd_contents(const std::string& path);

}  // namespace nbody::pic
