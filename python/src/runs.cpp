// nbody._core.run / resume: runs with a run directory, through the library's run_simulation and
// resume_run, driven by Python's hooks; what `nbody run` and `nbody run --resume` do.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "common.hpp"
#include "converters.hpp"
#include "hooks.hpp"
#include "nbody/error.hpp"

namespace nbody::py {

void bind_runs(pb::module_& m) {
  m.def(
      "run",
      [](const std::string& lines, bool overwrite, pb::object log, pb::object progress, pb::object callback,
         std::int64_t every) {
        const RunConfig cfg = config_from_lines(lines, "configuration");
        PythonHooks hooks(std::move(log), std::move(progress), std::move(callback), every, pb::none());
        RunResult r;
        {
          pb::gil_scoped_release release;
          r = run_simulation(cfg, hooks.hooks(), overwrite ? ExistingRunFiles::replace : ExistingRunFiles::refuse);
        }
        hooks.rethrow();
        return run_result_to_dict(r);
      },
      pb::arg("config"), pb::arg("overwrite") = false, pb::arg("log") = pb::none(), pb::arg("progress") = pb::none(),
      pb::arg("callback") = pb::none(), pb::arg("every") = 1);
  m.def(
      "resume",
      [](const std::filesystem::path& dir, const pb::dict& changes, pb::object log, pb::object progress,
         pb::object callback, std::int64_t every) {
        ResumePoint point;
        {
          pb::gil_scoped_release release;
          point = find_resume_point(dir);
        }
        RunConfig cfg = config_from_kwargs(changes, point.checkpoint.config, nullptr);
        if (changes.contains("steps") && changes.contains("t_end")) {
          throw_input_error("t_end: give steps or t_end, not both (t_end sets the steps)");
        }
        if (changes.contains("steps")) cfg.t_end = 0;
        PythonHooks hooks(std::move(log), std::move(progress), std::move(callback), every, pb::none());
        RunResult r;
        {
          pb::gil_scoped_release release;
          r = resume_run(std::move(point), cfg, hooks.hooks());
        }
        hooks.rethrow();
        return run_result_to_dict(r);
      },
      pb::arg("directory"), pb::arg("changes"), pb::arg("log") = pb::none(), pb::arg("progress") = pb::none(),
      pb::arg("callback") = pb::none(), pb::arg("every") = 1);
}

}  // namespace nbody::py
