// nbody check: the documents' program on a backend, compared with the float64 reference.
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/param_options.hpp"
#include "sim/documents_program.hpp"

namespace nbody::cli {

Command add_check_command(CLI::App& parent) {
  auto* app = parent.add_subcommand(
      "check",
      "Run the source documents' program (cube IC, N = 4096, 10 Euler steps, dt = 0.01, eps^2 = 1e-9) on a "
      "backend and compare its positions with cpu-reference in float64");
  auto params = std::make_shared<ParamOptions>();
  RunConfig defaults = documents_program();
  params->add_to(*app, defaults, {"device", "gravity", "backend", "precision", "n"}, /*with_config=*/false);
  // check draws its own cube: the run's words about --ic file: do not apply here.
  app->get_option("--n")->description("number of bodies of the cube (default: " + std::to_string(defaults.n) + ")");

  return {app, [params, defaults]() {
            const RunConfig cfg = params->resolve(defaults);
            std::printf("check: the documents' program: cube, N = %lld, %lld Euler steps, dt = %g, eps^2 = %g, seed %lld\n",
                        static_cast<long long>(cfg.n), static_cast<long long>(kDocumentsSteps), kDocumentsDt,
                        kDocumentsEps2, static_cast<long long>(kDocumentsSeed));
            const std::string backend = param_value_text(cfg, *find_run_param("backend"));
            const CheckResult r = check_documents_program(backend, cfg.precision, cfg.n);
            std::printf("backend: %s (%s), %s\n", r.backend.c_str(), r.device.c_str(), r.precision.c_str());
            std::printf("reference: cpu-reference, fp64\n");
            std::printf("relative position error: max %.3e, rms %.3e, median %.3e\n", r.errors.max_rel,
                        r.errors.rms_rel, r.errors.median_rel);
            std::printf("rounding sensitivity (reference rerun from initial state perturbed by %.3g): max %.3e, "
                        "rms %.3e, median %.3e\n",
                        check_perturbation(r.precision, r.n), r.sensitivity.max_rel, r.sensitivity.rms_rel,
                        r.sensitivity.median_rel);
            std::printf("tolerance: median error <= %g x median sensitivity = %.3e (max and rms are dominated by "
                        "the few bodies in close encounters)\n",
                        kCheckToleranceFactor, r.tolerance);
            std::printf("%s\n", r.correct ? "positions correct" : "positions WRONG");
            return r.correct ? 0 : 1;
          }};
}

}  // namespace nbody::cli
