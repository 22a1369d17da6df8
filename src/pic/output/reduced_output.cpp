#include "pic/output/reduced_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "io/atomic_file.hpp"
#include "nbody/error.hpp"
#include "pic/output/spectrum.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {
namespace {

std::string file_name(const std::string& dir, const char* kind, std::int64_t step) {
  char name[64];
  std::snprintf(name, sizeof name, "%s_%08lld.csv", kind, static_cast<long long>(step));
  return (std::filesystem::path(dir) / name).string();
}

void append(std::string& out, const char* format, double a, double b = 0, double c = 0) {
  char row[160];
  std::snprintf(row, sizeof row, format, a, b, c);
  out += row;
}

std::string profile_csv(const GridGeometry& g, const std::vector<std::string>& names, const ReducedData& d) {
  std::string out = "x_lambda";
  for (const std::string& name : names) out += ",weight_" + name;
  out += ",Ey_mid,Ez_mid\n";
  for (int i = 0; i < g.nx; ++i) {
    append(out, "%.9g", (g.x0 + (i + 0.5) * g.dx) / (2 * kPi));
    for (const SpeciesReduction& s : d.species) append(out, ",%.9g", s.profile[std::size_t(i)]);
    append(out, ",%.9g,%.9g\n", d.ey_mid[std::size_t(i)], d.ez_mid[std::size_t(i)]);
  }
  return out;
}

std::string spectrum_csv(const std::vector<std::string>& names, const ReducedData& d) {
  std::string out = "species,e_lo_MeV,e_hi_MeV,weight\n";
  for (std::size_t k = 0; k < d.species.size(); ++k) {
    const SpeciesReduction& s = d.species[k];
    if (s.spectrum.empty()) continue;
    const double top = s.top_mev;
    for (int b = 0; b < kEnergyBins; ++b) {
      out += names[k];
      append(out, ",%.9g,%.9g,%.9g\n", top * b / kEnergyBins, top * (b + 1) / kEnergyBins, s.spectrum[std::size_t(b)]);
    }
  }
  return out;
}

std::string phase_csv(const GridGeometry& g, const std::vector<std::string>& names, const ReducedData& d) {
  std::string out = "species,x_lambda,ux,weight\n";
  const double dxb = g.lx() / kPhaseXBins;
  for (std::size_t k = 0; k < d.species.size(); ++k) {
    const SpeciesReduction& s = d.species[k];
    if (!s.live) continue;
    for (int i = 0; i < kPhaseXBins; ++i)
      for (int j = 0; j < kPhaseUBins; ++j) {
        const double v = s.phase[std::size_t(i) * kPhaseUBins + std::size_t(j)];
        if (v == 0) continue;
        out += names[k];
        append(out, ",%.9g,%.9g,%.9g\n", (g.x0 + (i + 0.5) * dxb) / (2 * kPi), s.u0 + (j + 0.5) * s.du, v);
      }
  }
  return out;
}

}  // namespace

ReducedData reduce_on_host(const PicSimulation& sim) {
  const GridGeometry& g = sim.settings().geom;
  ReducedData d;
  const double dxb = g.lx() / kPhaseXBins;
  for (const Species& sp : sim.species()) {
    SpeciesReduction r;
    r.profile.assign(std::size_t(g.nx), 0.0);
    for (std::size_t k = 0; k < sp.size(); ++k) {
      const int i = static_cast<int>(std::floor((sp.x[k] - g.x0) / g.dx));
      if (i >= 0 && i < g.nx) r.profile[std::size_t(i)] += sp.w[k];
    }
    const EnergySpectrum spectrum = energy_spectrum(sp, kEnergyBins);
    r.top_mev = spectrum.top_mev;
    r.spectrum = spectrum.weight;
    r.live = sp.size() > 0;
    if (r.live) {
      const auto [lo, hi] = std::minmax_element(sp.ux.begin(), sp.ux.end());
      set_phase_range(r, *lo, *hi);
      r.phase.assign(std::size_t(kPhaseXBins) * kPhaseUBins, 0.0);
      for (std::size_t k = 0; k < sp.size(); ++k) {
        const int i = std::clamp(static_cast<int>((sp.x[k] - g.x0) / dxb), 0, kPhaseXBins - 1);
        const int j = std::clamp(static_cast<int>((sp.ux[k] - r.u0) / r.du), 0, kPhaseUBins - 1);
        r.phase[std::size_t(i) * kPhaseUBins + std::size_t(j)] += sp.w[k];
      }
    }
    d.species.push_back(std::move(r));
  }
  const int mid = g.ny / 2;
  d.ey_mid.resize(std::size_t(g.nx));
  d.ez_mid.resize(std::size_t(g.nx));
  for (int i = 0; i < g.nx; ++i) {
    d.ey_mid[std::size_t(i)] = sim.fields().at(kEy, i, mid);
    d.ez_mid[std::size_t(i)] = sim.fields().at(kEz, i, mid);
  }
  return d;
}

void write_reduced_outputs(const std::string& dir, std::int64_t step, const GridGeometry& g,
                           const std::vector<std::string>& names, const ReducedData& data) {
  if (names.size() != data.species.size() || data.ey_mid.size() != std::size_t(g.nx))
    throw_runtime_error("pic: reduced outputs of another run's shape");
  write_file_atomic(file_name(dir, "profile", step), profile_csv(g, names, data));
  write_file_atomic(file_name(dir, "spectrum", step), spectrum_csv(names, data));
  write_file_atomic(file_name(dir, "phase", step), phase_csv(g, names, data));
}

std::vector<std::string> species_names(const PicSimulation& sim) {
  std::vector<std::string> names;
  for (const Species& s : sim.species()) names.push_back(s.name);
  return names;
}

void write_reduced_outputs(const std::string& dir, const PicSimulation& sim) {
  write_reduced_outputs(dir, sim.step_count(), sim.settings().geom, species_names(sim), reduce_on_host(sim));
}

}  // namespace nbody::pic
