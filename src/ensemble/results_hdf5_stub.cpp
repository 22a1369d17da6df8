// A build without HDF5: results.csv alone.
#include "ensemble/results.hpp"

namespace nbody::ensemble {

bool results_hdf5_available() { return false; }
bool write_results_hdf5(const std::filesystem::path&, const EnsembleStore&, const std::vector<SystemResult>&) { return false; }

}  // namespace nbody::ensemble
