#include "pic/driver/run_state.hpp"

#include <algorithm>
#include <cmath>

namespace nbody::pic {

namespace {

// max|(div E - rho) - (div E - rho)_initial| / rho_scale: the initial loading is not Gauss
// consistent (species loaded at independent positions, E = 0); charge conservation keeps that
// initial residual unchanged, so the change is the measure.
double gauss_change(PicSimulation& sim, const std::vector<double>& initial, double rho_scale) {
  sim.compute_rho();
  const std::vector<double> r = sim.gauss_residual_field();
  double m = 0;
  for (std::size_t k = 0; k < r.size() && k < initial.size(); ++k) m = std::max(m, std::fabs(r[k] - initial[k]));
  return rho_scale > 0 ? m / rho_scale : m;
}

}  // namespace

void measure_gauss_reference(PicSimulation& sim, PicProgress& p) {
  // The largest charge density of a single species: the scale of the Gauss residual.
  p.rho_scale = 0;
  for (int k = 0; k < int(sim.species().size()); ++k) {
    sim.compute_rho(k);
    p.rho_scale = std::max(p.rho_scale, sim.rho_abs_max());
  }
  sim.compute_rho();
  p.initial_residual = sim.gauss_residual_field();
}

PicSimulation& PicRunState::host() {
  if (host_step_ != step()) {
    engine_.to_host(host_);
    host_step_ = step();
    ++state_copies_;
  }
  return host_;
}

PicSimulation& PicRunState::host_fields() {
  if (host_step_ != step() && fields_step_ != step()) {
    engine_.fields_to_host(host_);
    fields_step_ = step();
    ++field_copies_;
  }
  return host_;
}

ReducedData PicRunState::reduced() {
  if (auto d = engine_.device_reduced()) return std::move(*d);
  const PicSimulation& h = host();  // (collective)
  return root_ ? reduce_on_host(h) : ReducedData{};
}

const PicRow& PicRunState::diagnostics() {
  if (row_ && row_->step == step()) return *row_;
  PicRow r;
  r.step = step();
  r.time = time();
  if (auto d = engine_.device_diagnostics()) {
    r.energies = d->energies;
    r.counts = d->counts;
    r.gauss_change = start_.rho_scale > 0 ? d->gauss_change_max / start_.rho_scale : d->gauss_change_max;
    r.flux_left = d->flux_left, r.flux_right = d->flux_right;
    r.energy_in = d->energy_in_left, r.energy_out = d->energy_out_right;
  } else {
    PicSimulation& h = host();              // (collective)
    const PoyntingTrack t = engine_.poynting();  // (collective)
    r.flux_left = t.flux_left, r.flux_right = t.flux_right;
    r.energy_in = t.energy_in_left, r.energy_out = t.energy_out_right;
    if (root_) {
      r.energies = h.energies();
      r.gauss_change = gauss_change(h, start_.initial_residual, start_.rho_scale);
      for (const Species& s : h.species()) r.counts.push_back(s.size());
    }
  }
  row_ = std::move(r);
  return *row_;
}

}  // namespace nbody::pic
