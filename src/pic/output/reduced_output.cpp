#include "pic/output/reduced_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "io/atomic_file.hpp"
#include "pic/output/spectrum.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {
namespace {

constexpr int kEnergyBins = 200, kPhaseXBins = 200, kPhaseUBins = 100;

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

std::string profile_csv(const PicSimulation& sim) {
  const GridGeometry& g = sim.settings().geom;
  const auto& species = sim.species();
  std::vector<std::vector<double>> w(species.size(), std::vector<double>(std::size_t(g.nx), 0.0));
  for (std::size_t s = 0; s < species.size(); ++s) {
    const Species& sp = species[s];
    for (std::size_t k = 0; k < sp.size(); ++k) {
      const int i = static_cast<int>(std::floor((sp.x[k] - g.x0) / g.dx));
      if (i >= 0 && i < g.nx) w[s][std::size_t(i)] += sp.w[k];
    }
  }
  std::string out = "x_lambda";
  for (const Species& sp : species) out += ",weight_" + sp.name;
  out += ",Ey_mid,Ez_mid\n";
  const int mid = g.ny / 2;
  for (int i = 0; i < g.nx; ++i) {
    append(out, "%.9g", (g.x0 + (i + 0.5) * g.dx) / (2 * kPi));
    for (const auto& col : w) append(out, ",%.9g", col[std::size_t(i)]);
    append(out, ",%.9g,%.9g\n", sim.fields().at(kEy, i, mid), sim.fields().at(kEz, i, mid));
  }
  return out;
}

std::string spectrum_csv(const PicSimulation& sim) {
  std::string out = "species,e_lo_MeV,e_hi_MeV,weight\n";
  for (const Species& sp : sim.species()) {
    const EnergySpectrum spectrum = energy_spectrum(sp, kEnergyBins);
    if (spectrum.weight.empty()) continue;
    const double top = spectrum.top_mev;
    const std::vector<double>& h = spectrum.weight;
    for (int b = 0; b < kEnergyBins; ++b) {
      out += sp.name;
      append(out, ",%.9g,%.9g,%.9g\n", top * b / kEnergyBins, top * (b + 1) / kEnergyBins, h[std::size_t(b)]);
    }
  }
  return out;
}

std::string phase_csv(const PicSimulation& sim) {
  const GridGeometry& g = sim.settings().geom;
  std::string out = "species,x_lambda,ux,weight\n";
  for (const Species& sp : sim.species()) {
    if (sp.size() == 0) continue;
    const auto [lo, hi] = std::minmax_element(sp.ux.begin(), sp.ux.end());
    const double u0 = *lo, du = (*hi > *lo ? *hi - *lo : 1.0) / kPhaseUBins;
    std::vector<double> h(std::size_t(kPhaseXBins) * kPhaseUBins, 0.0);
    const double dxb = g.lx() / kPhaseXBins;
    for (std::size_t k = 0; k < sp.size(); ++k) {
      const int i = std::clamp(static_cast<int>((sp.x[k] - g.x0) / dxb), 0, kPhaseXBins - 1);
      const int j = std::clamp(static_cast<int>((sp.ux[k] - u0) / du), 0, kPhaseUBins - 1);
      h[std::size_t(i) * kPhaseUBins + std::size_t(j)] += sp.w[k];
    }
    for (int i = 0; i < kPhaseXBins; ++i)
      for (int j = 0; j < kPhaseUBins; ++j) {
        const double v = h[std::size_t(i) * kPhaseUBins + std::size_t(j)];
        if (v == 0) continue;
        out += sp.name;
        append(out, ",%.9g,%.9g,%.9g\n", (g.x0 + (i + 0.5) * dxb) / (2 * kPi), u0 + (j + 0.5) * du, v);
      }
  }
  return out;
}

}  // namespace

void write_reduced_outputs(const std::string& dir, const PicSimulation& sim) {
  write_file_atomic(file_name(dir, "profile", sim.step_count()), profile_csv(sim));
  write_file_atomic(file_name(dir, "spectrum", sim.step_count()), spectrum_csv(sim));
  write_file_atomic(file_name(dir, "phase", sim.step_count()), phase_csv(sim));
}

}  // namespace nbody::pic
