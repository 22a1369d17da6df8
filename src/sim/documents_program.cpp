#include "sim/documents_program.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/rng.hpp"
#include "ic/ic.hpp"
#include "nbody/error.hpp"
#include "nbody/simulation.hpp"

namespace nbody {

RunConfig documents_program(std::int64_t n) {
  RunConfig cfg;
  cfg.ic = "cube";
  cfg.n = n;
  cfg.seed = kDocumentsSeed;
  cfg.gravitational_constant = 1.0;
  cfg.softening = std::sqrt(kDocumentsEps2);
  cfg.integrator = "euler";
  cfg.dt = kDocumentsDt;
  cfg.steps = kDocumentsSteps;
  return cfg;
}

PositionErrors position_errors(const Particles<double>& p, const Particles<double>& ref) {
  if (p.size() != ref.size()) throw_runtime_error("position_errors: particle counts differ");
  PositionErrors e;
  if (p.size() == 0) return e;
  std::vector<double> rel(p.size());
  double sum2 = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double dx = p.x[i] - ref.x[i], dy = p.y[i] - ref.y[i], dz = p.z[i] - ref.z[i];
    const double r = std::sqrt(ref.x[i] * ref.x[i] + ref.y[i] * ref.y[i] + ref.z[i] * ref.z[i]);
    const double ri = std::sqrt(dx * dx + dy * dy + dz * dz) / r;
    rel[i] = std::isnan(ri) ? INFINITY : ri;  // a NaN position is as wrong as it gets
    e.max_rel = std::max(e.max_rel, rel[i]);
    sum2 += rel[i] * rel[i];
  }
  e.rms_rel = std::sqrt(sum2 / double(p.size()));
  std::nth_element(rel.begin(), rel.begin() + std::ptrdiff_t(rel.size() / 2), rel.end());
  e.median_rel = rel[rel.size() / 2];
  return e;
}

Particles<double> perturb(const Particles<double>& p, double delta, std::uint64_t seed) {
  Particles<double> q = p;
  Rng rng(seed);
  for (auto* v : {&q.x, &q.y, &q.z, &q.vx, &q.vy, &q.vz}) {
    for (double& value : *v) value *= 1.0 + delta * rng.uniform(-1.0, 1.0);
  }
  return q;
}

double check_perturbation(const std::string& precision, std::int64_t n) {
  const double u = precision == "fp64" ? 0x1.0p-53 : 0x1.0p-24;  // mixed: float32 pair terms
  return u * std::max(1.0, std::sqrt(double(n) / double(kDocumentsBodies)));
}

namespace {

Particles<double> final_positions(const RunConfig& cfg, const Particles<double>& initial, std::string* backend = nullptr,
                                  std::string* device = nullptr) {
  auto sim = Simulation::create(cfg, initial);
  sim->advance(cfg.steps);
  if (backend != nullptr) *backend = sim->backend_name();
  if (device != nullptr) *device = sim->device_name();
  return sim->particles();
}

}  // namespace

DocumentsReference documents_reference(std::int64_t n, const std::string& precision) {
  RunConfig cfg = documents_program(n);
  cfg.device = "cpu", cfg.gravity = "reference";
  cfg.precision = "fp64";
  validate(cfg);
  DocumentsReference ref;
  ref.n = n;
  ref.precision = precision;
  ref.initial = make_cube({cfg.ic, n, static_cast<std::uint64_t>(cfg.seed)});
  ref.final = final_positions(cfg, ref.initial);
  const Particles<double> perturbed =
      final_positions(cfg, perturb(ref.initial, check_perturbation(precision, n), kDocumentsSeed + 1));
  ref.sensitivity = position_errors(perturbed, ref.final);
  ref.tolerance = kCheckToleranceFactor * ref.sensitivity.median_rel;
  return ref;
}

CheckResult check_documents_program(const std::string& backend, const std::string& precision, std::int64_t n) {
  RunConfig cfg = documents_program(n);
  set_param_from_text(cfg, *find_run_param("backend"), backend, "backend");
  cfg.precision = precision;
  validate(cfg);
  const DocumentsReference ref = documents_reference(n, precision);

  CheckResult r;
  r.precision = precision;
  r.n = n;
  const Particles<double> got = final_positions(cfg, ref.initial, &r.backend, &r.device);
  r.errors = position_errors(got, ref.final);
  r.sensitivity = ref.sensitivity;
  r.tolerance = ref.tolerance;
  r.correct = r.errors.median_rel <= r.tolerance;
  return r;
}

}  // namespace nbody
