// nbody._core.ensemble_run / ensemble_resume: `nbody ensemble` from Python (nbody.Ensemble),
// through the library's run_ensemble and resume_ensemble, driven by Python's hooks.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "common.hpp"
#include "ensemble/config.hpp"
#include "ensemble/generators.hpp"
#include "ensemble/results.hpp"
#include "ensemble/run.hpp"
#include "hooks.hpp"
#include "io/run_files.hpp"

namespace nbody::py {
namespace {

template <class T>
pb::array_t<T> array_of(const std::vector<T>& v) {
  pb::array_t<T> a(pb::ssize_t(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// The run's summary, every system's result and every body's final state.
pb::dict result_dict(const ensemble::EnsembleRunResult& r, ensemble::EnsembleStore& s, double eps2) {
  pb::dict d;
  d["backend"] = r.backend;
  d["first_interval"] = r.first_interval;
  d["last_interval"] = r.last_interval;
  d["intervals"] = r.intervals;
  d["stopped_by"] = r.stopped_by ? pb::object(pb::str(*r.stopped_by)) : pb::object(pb::none());
  d["directory"] = r.directory ? pb::object(pb::str(r.directory->string())) : pb::object(pb::none());
  d["wall_seconds"] = r.wall_seconds;
  d["system_steps"] = r.system_steps;
  const std::vector<ensemble::SystemResult> rs = ensemble::system_results(s, eps2);
  std::vector<std::string> outcome;
  std::vector<double> stop_time, time, de, dl, a, e;
  std::vector<std::int64_t> steps, pair_i, pair_j;
  for (const auto& q : rs) {
    outcome.emplace_back(ensemble::outcome_name(q.outcome));
    stop_time.push_back(q.stop_time), time.push_back(q.time), de.push_back(q.de), dl.push_back(q.dl);
    a.push_back(q.a), e.push_back(q.e), steps.push_back(q.steps), pair_i.push_back(q.pair_i), pair_j.push_back(q.pair_j);
  }
  d["outcome"] = outcome;
  d["stop_time"] = array_of(stop_time), d["time"] = array_of(time), d["steps"] = array_of(steps);
  d["dE_rel"] = array_of(de), d["dL_rel"] = array_of(dl);
  d["pair_i"] = array_of(pair_i), d["pair_j"] = array_of(pair_j), d["a"] = array_of(a), d["e"] = array_of(e);
  d["offset"] = array_of(s.offset);
  for (const auto& [name, v] : {std::pair{"m", &s.m}, std::pair{"x", &s.x}, std::pair{"y", &s.y}, std::pair{"z", &s.z},
                                std::pair{"vx", &s.vx}, std::pair{"vy", &s.vy}, std::pair{"vz", &s.vz}})
    d[name] = array_of(*v);
  return d;
}

}  // namespace

void bind_ensembles(pb::module_& m) {
  m.def(
      "ensemble_run",
      [](const std::string& text, const std::string& name, const std::vector<std::string>& overrides,
         const std::string& out, bool overwrite, pb::object log, pb::object progress) {
        ensemble::EnsembleFlags flags;
        if (!out.empty()) flags.out = out;
        const ensemble::EnsembleConfig cfg = ensemble::read_ensemble_config_text(text, name, overrides, flags);
        if (!cfg.out_dir.empty()) {
          RunDirectoryLock::check_free(cfg.out_dir, "out");
          RunFiles::check_usable(cfg.out_dir, overwrite);
        }
        ensemble::EnsembleStore s = ensemble::make_systems(cfg);
        PythonHooks hooks(std::move(log), std::move(progress), pb::none(), 1, pb::none());
        hooks.hooks().resume_command = "nbody.Ensemble.resume";
        ensemble::EnsembleRunResult r;
        {
          pb::gil_scoped_release release;
          r = ensemble::run_ensemble(cfg, s, hooks.hooks(),
                                     overwrite ? ExistingRunFiles::replace : ExistingRunFiles::refuse);
        }
        hooks.rethrow();
        return result_dict(r, s, cfg.params.eps2);
      },
      pb::arg("text"), pb::arg("name"), pb::arg("overrides"), pb::arg("out") = "", pb::arg("overwrite") = false,
      pb::arg("log") = pb::none(), pb::arg("progress") = pb::none());
  m.def(
      "ensemble_resume",
      [](const std::filesystem::path& dir, const std::vector<std::string>& overrides, pb::object log,
         pb::object progress) {
        PythonHooks hooks(std::move(log), std::move(progress), pb::none(), 1, pb::none());
        hooks.hooks().resume_command = "nbody.Ensemble.resume";
        ensemble::EnsembleRunResult r;
        {
          pb::gil_scoped_release release;
          r = ensemble::resume_ensemble(dir, overrides, hooks.hooks());
        }
        hooks.rethrow();
        return r.directory ? r.directory->string() : std::string();
      },
      pb::arg("directory"), pb::arg("overrides"), pb::arg("log") = pb::none(), pb::arg("progress") = pb::none());
}

}  // namespace nbody::py
