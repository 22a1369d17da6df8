// results.h5 through the checked HDF5 writer of the PIC outputs (pic/output/hdf5_write.hpp).
#include <cstdint>

#include "ensemble/results.hpp"
#include "ensemble/params.hpp"
#include "io/atomic_file.hpp"
#include "pic/output/hdf5_write.hpp"

namespace nbody::ensemble {

bool results_hdf5_available() { return true; }

bool write_results_hdf5(const std::filesystem::path& path, const EnsembleStore& s, const std::vector<SystemResult>& r) {
  using pic::h5::Handle;
  using pic::h5::Writer;
  replace_file_atomic(path, [&](const std::filesystem::path& tmp) {
    const Writer w(path.string());
    Handle file = w.create_file(tmp.string());
    {
      Handle g = w.group(file.get(), "systems");
      const std::vector<hsize_t> dims{hsize_t(r.size())};
      std::vector<std::uint64_t> outcome, steps;
      std::vector<double> stop, time, de, dl, a, e;
      for (const SystemResult& q : r) {
        outcome.push_back(std::uint64_t(q.outcome)), steps.push_back(std::uint64_t(q.steps));
        stop.push_back(q.stop_time), time.push_back(q.time), de.push_back(q.de), dl.push_back(q.dl);
        a.push_back(q.a), e.push_back(q.e);
      }
      std::vector<std::string> names;
      for (int o = 0; o < kOutcomes; ++o) names.emplace_back(outcome_name(o));
      Handle d = w.dataset(g.get(), "outcome", dims, outcome.data());
      w.attr_strings(d.get(), "names", names);
      w.close(d, "outcome");
      struct Col { const char* name; const std::vector<double>* v; };
      for (const Col c : {Col{"stop_time", &stop}, Col{"time", &time}, Col{"dE_rel", &de}, Col{"dL_rel", &dl},
                          Col{"a", &a}, Col{"e", &e}}) {
        Handle h = w.dataset(g.get(), c.name, dims, c.v->data());
        w.close(h, c.name);
      }
      Handle h = w.dataset(g.get(), "steps", dims, steps.data());
      w.close(h, "steps");
      w.close(g, "systems");
    }
    {
      Handle g = w.group(file.get(), "bodies");
      const std::vector<hsize_t> dims{hsize_t(s.bodies())};
      struct Col { const char* name; const std::vector<double>* v; };
      for (const Col c : {Col{"m", &s.m}, Col{"x", &s.x}, Col{"y", &s.y}, Col{"z", &s.z}, Col{"vx", &s.vx},
                          Col{"vy", &s.vy}, Col{"vz", &s.vz}}) {
        Handle h = w.dataset(g.get(), c.name, dims, c.v->data());
        w.close(h, c.name);
      }
      std::vector<std::uint64_t> off(s.offset.begin(), s.offset.end());
      Handle h = w.dataset(g.get(), "offset", {hsize_t(off.size())}, off.data());
      w.close(h, "offset");
      w.close(g, "bodies");
    }
    w.close(file, path.string());
  });
  return true;
}

}  // namespace nbody::ensemble
