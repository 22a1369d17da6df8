#include "pic/output/images.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "nbody/error.hpp"
#include "pic/physics/units.hpp"
#include "render/image.hpp"

namespace nbody::pic {
namespace {

using render::ColormapId;
using render::Scale;

constexpr double kLambda = 2 * kPi;  // a laser wavelength in the code's length unit c / omega0
constexpr double kDensityDecades = 4;
constexpr double kSpectrumDecades = 6;
constexpr int kSpectrumBins = 200;  // as spectrum_<step>.csv

std::string number(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

std::string image_name(const std::string& what, std::int64_t step) {
  char b[32];
  std::snprintf(b, sizeof b, "_%08lld.png", static_cast<long long>(step));
  return what + b;
}

ColormapId colormap_of(FieldMapKind kind) {
  return kind == FieldMapKind::signed_field ? ColormapId::coolwarm : ColormapId::viridis;
}

}  // namespace

bool images_available(std::string*) { return true; }

void field_image_size(const GridGeometry& g, int& width, int& height) {
  width = std::min(g.nx, 2048);
  const double h = std::round(width * (g.ly() / g.lx()));
  height = int(std::clamp(h, 32.0, 2048.0));
}

void pixel_node(const GridGeometry& g, int width, int height, int px, int py, int& i, int& j) {
  i = std::min(g.nx - 1, int((px + 0.5) * g.nx / width));
  j = g.ny - 1 - std::min(g.ny - 1, int((py + 0.5) * g.ny / height));
}

Scale field_scale(const std::vector<double>& values, FieldMapKind kind) {
  double top = 0;
  for (double v : values)
    if (std::isfinite(v)) top = std::max(top, std::fabs(v));
  switch (kind) {
    case FieldMapKind::signed_field: return Scale::symmetric(top);
    case FieldMapKind::magnitude: return Scale::linear(0, top);
    case FieldMapKind::density: {
      if (!(top > 0)) return Scale::log(0.1, 1);  // nothing anywhere: every sample at the low end
      double lo = top;
      for (double v : values)
        if (v > 0 && v < lo) lo = v;
      lo = std::max(lo, top * std::pow(10.0, -kDensityDecades));
      if (!(lo < top)) lo = top / 10;  // uniform: every sample at the top
      return Scale::log(lo, top);
    }
  }
  return Scale::linear(0, top);
}

render::Figure field_map(const GridGeometry& g, const std::vector<double>& values, FieldMapKind kind,
                         const FieldMapLabels& labels, double& lo, double& hi, std::optional<ColormapId> colormap) {
  int w, h;
  field_image_size(g, w, h);
  std::vector<double> samples(std::size_t(w) * std::size_t(h));
  for (int py = 0; py < h; ++py)
    for (int px = 0; px < w; ++px) {
      int i, j;
      pixel_node(g, w, h, px, py, i, j);
      samples[std::size_t(h - 1 - py) * std::size_t(w) + std::size_t(px)] =
          values[std::size_t(j) * std::size_t(g.nx) + std::size_t(i)];
    }
  render::FigureSpec spec;
  spec.title = labels.title;
  spec.time = labels.time;
  spec.x = {g.x0 / kLambda, (g.x0 + g.lx()) / kLambda, "x (\u03bb)"};
  spec.y = {g.y0 / kLambda, (g.y0 + g.ly()) / kLambda, "y (\u03bb)"};
  spec.colorbar_label = labels.quantity;
  spec.colormap = colormap.value_or(colormap_of(kind));
  spec.scale = field_scale(values, kind);
  lo = spec.scale.lo, hi = spec.scale.hi;
  return render::draw_figure({w, h, samples}, spec);
}

PhaseHistogram phase_histogram(const Species& s, const GridGeometry& g, int nx_bins, int nu_bins) {
  PhaseHistogram h;
  h.nx_bins = nx_bins, h.nu_bins = nu_bins;
  h.x_lo = g.x0, h.x_hi = g.x0 + g.lx();
  h.weight.assign(std::size_t(nx_bins) * std::size_t(nu_bins), 0.0);
  if (s.size() == 0) {
    h.u_lo = -0.5, h.u_hi = 0.5;
    return h;
  }
  const auto [lo, hi] = std::minmax_element(s.ux.begin(), s.ux.end());
  h.u_lo = *lo, h.u_hi = *hi;
  if (!(h.u_hi > h.u_lo)) h.u_lo -= 0.5, h.u_hi += 0.5;
  const double fx = nx_bins / (h.x_hi - h.x_lo), fu = nu_bins / (h.u_hi - h.u_lo);
  for (std::size_t k = 0; k < s.size(); ++k) {
    const int ix = std::clamp(int(std::floor((s.x[k] - h.x_lo) * fx)), 0, nx_bins - 1);
    const int iu = std::clamp(int(std::floor((s.ux[k] - h.u_lo) * fu)), 0, nu_bins - 1);
    h.weight[std::size_t(iu) * std::size_t(nx_bins) + std::size_t(ix)] += s.w[k];
  }
  return h;
}

render::Figure phase_image(const PhaseHistogram& h, const FieldMapLabels& labels, double decades,
                           std::optional<ColormapId> colormap) {
  double top = 0;
  for (double v : h.weight) top = std::max(top, v);
  render::FigureSpec spec;
  spec.title = labels.title;
  spec.time = labels.time;
  spec.x = {h.x_lo / kLambda, h.x_hi / kLambda, "x (\u03bb)"};
  spec.y = {h.u_lo, h.u_hi, "u_x = p_x / (m c)"};
  spec.colorbar_label = labels.quantity;
  spec.colormap = colormap.value_or(ColormapId::viridis);
  spec.scale = top > 0 ? Scale::log(top * std::pow(10.0, -decades), top) : Scale::log(0.1, 1);
  spec.empty_colour = render::Rgb{255, 255, 255};
  return render::draw_figure({h.nx_bins, h.nu_bins, h.weight}, spec);
}

render::LinePlot spectrum_image(const EnergySpectrum& s, const FieldMapLabels& labels, double& lo, double& hi) {
  render::LinePlotSpec spec;
  spec.title = labels.title;
  spec.time = labels.time;
  spec.x = {0, 1, false, "E (MeV)"};
  spec.y = {0.1, 1, true, labels.quantity};
  const double width = s.bin_width();
  double top = 0, least = 0;
  for (double w : s.weight)
    if (w > 0) {
      top = std::max(top, w / width);
      least = least > 0 ? std::min(least, w / width) : w / width;
    }
  if (!(top > 0) || !std::isfinite(top)) {
    spec.note = "no moving particle: every kinetic energy is 0";
  } else {
    spec.x.hi = s.top_mev;
    spec.y.hi = std::pow(10.0, std::ceil(std::log10(top)));
    spec.y.lo = std::pow(10.0, std::floor(std::log10(std::max(least, top * std::pow(10.0, -kSpectrumDecades)))));
    if (!(spec.y.lo < spec.y.hi)) spec.y.lo = spec.y.hi / 10;
    // The histogram's outline: up from the floor at E = 0, a step per bin, down at the top energy.
    render::LineSeries line;
    line.x.push_back(0);
    line.y.push_back(spec.y.lo);
    for (std::size_t b = 0; b < s.weight.size(); ++b) {
      const double v = s.weight[b] > 0 ? s.weight[b] / width : spec.y.lo;
      line.x.insert(line.x.end(), {double(b) * width, double(b + 1) * width});
      line.y.insert(line.y.end(), {v, v});
    }
    line.x.push_back(s.top_mev);
    line.y.push_back(spec.y.lo);
    spec.series.push_back(std::move(line));
  }
  lo = spec.y.lo, hi = spec.y.hi;
  return render::draw_line_plot(spec);
}

std::vector<std::string> image_quantities(const PicSimulation& sim) {
  std::vector<std::string> q = {"Ey", "Ez", "Bz", "E_abs"};
  for (const Species& sp : sim.species())
    for (const char* what : {"density_", "phase_", "spectrum_"}) q.push_back(what + sp.name);
  return q;
}

void check_image_request(const ImageRequest& request, const PicSimulation& sim) {
  const std::vector<std::string> known = image_quantities(sim);
  for (const std::string& q : request.quantities)
    if (std::find(known.begin(), known.end(), q) == known.end()) {
      std::string species, list;
      for (const Species& sp : sim.species()) species += (species.empty() ? "" : ", ") + sp.name;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      const auto cut = q.find('_');
      const std::string kind = cut == std::string::npos ? q : q.substr(0, cut + 1);
      if (kind == "density_" || kind == "phase_" || kind == "spectrum_")
        throw_input_error("quantity '" + q + "': the run has no species '" + q.substr(cut + 1) +
                          "' (its species: " + species + ")");
      throw_input_error("quantity '" + q + "' is not known (there are: " + list + ")");
    }
  if (!request.colormap.empty()) (void)render::colormap(request.colormap);
}

std::vector<std::filesystem::path> write_images(const ImageRequest& request, PicSimulation& sim) {
  namespace fs = std::filesystem;
  check_image_request(request, sim);
  std::optional<ColormapId> map;
  if (!request.colormap.empty()) map = render::colormap(request.colormap).id;
  auto wanted = [&](const std::string& q) {
    return request.quantities.empty() ||
           std::find(request.quantities.begin(), request.quantities.end(), q) != request.quantities.end();
  };
  auto map_name = [&](FieldMapKind kind) { return std::string(render::colormap(map.value_or(colormap_of(kind))).name); };
  const fs::path out = request.dir;
  std::vector<fs::path> written;
  auto png = [&](const std::string& what, const render::Image& image, const render::TextChunks& text) {
    written.push_back(out / image_name(what, sim.step_count()));
    render::write_png(written.back(), image, text);
  };
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw_runtime_error("pic: cannot create '" + out.string() + "': " + ec.message());
  const GridGeometry& g = sim.settings().geom;
  const std::int64_t step = sim.step_count();
  const double periods = sim.time() / (2 * kPi);
  char when[64];
  std::snprintf(when, sizeof when, "t = %.2f T\u2080 (step %lld)", periods, static_cast<long long>(step));
  const std::string extent = "x " + number(g.x0 / kLambda) + " .. " + number((g.x0 + g.lx()) / kLambda) +
                             " lambda (to the right), y " + number(g.y0 / kLambda) + " .. " +
                             number((g.y0 + g.ly()) / kLambda) + " lambda (up)";
  auto chunks = [&](const std::string& what, const std::string& unit, const render::Figure& f, const std::string& cmap,
                    const std::string& scale, double lo, double hi, const std::string& ext) {
    return render::TextChunks{{"Title", what + " at step " + std::to_string(step) + ", t = " + number(periods) + " periods"},
                              {"Software", "nbody pic"},
                              {"Quantity", what},
                              {"Unit", unit},
                              {"Colormap", cmap},
                              {"Scale", scale},
                              {"Min", number(lo)},
                              {"Max", number(hi)},
                              {"Step", std::to_string(step)},
                              {"Time_periods", number(periods)},
                              {"Extent", ext},
                              {"Plot_box", f.plot.text()},
                              {"Colorbar_box", f.colorbar.text()}};
  };
  std::vector<double> v(std::size_t(g.nx) * std::size_t(g.ny));
  auto fill = [&](auto&& f) {
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) v[std::size_t(j) * std::size_t(g.nx) + std::size_t(i)] = f(i, j);
  };
  const Fields& fl = sim.fields();
  const std::string e_unit = "m_e c \u03c9\u2080 / e", b_unit = "m_e \u03c9\u2080 / e";
  const std::string e_unit_ascii = "m_e c omega0 / e", b_unit_ascii = "m_e omega0 / e";
  for (int c : {int(kEy), int(kEz), int(kBz)}) {
    const std::string name = kComponentNames[c];
    if (!wanted(name)) continue;
    fill([&](int i, int j) { return fl.at(c, i, j); });
    const bool b = c == kBz;
    double lo, hi;
    const render::Figure f = field_map(g, v, FieldMapKind::signed_field,
                                       {name, when, name + " (" + (b ? b_unit : e_unit) + ")"}, lo, hi, map);
    png(name, f.image,
        chunks(name, b ? b_unit_ascii : e_unit_ascii, f, map_name(FieldMapKind::signed_field), "symmetric", lo, hi, extent));
  }
  if (wanted("E_abs")) {
    fill([&](int i, int j) {
      const double ex = fl.at(kEx, i, j), ey = fl.at(kEy, i, j), ez = fl.at(kEz, i, j);
      return std::sqrt(ex * ex + ey * ey + ez * ez);
    });
    double lo, hi;
    const render::Figure f =
        field_map(g, v, FieldMapKind::magnitude, {"|E|", when, "|E| (" + e_unit + ")"}, lo, hi, map);
    png("E_abs", f.image, chunks("|E|", e_unit_ascii, f, map_name(FieldMapKind::magnitude), "linear", lo, hi, extent));
  }
  for (int k = 0; k < int(sim.species().size()); ++k) {
    const Species& sp = sim.species()[std::size_t(k)];
    if (wanted("density_" + sp.name)) {
      sim.compute_rho(k);
      const double q = std::fabs(sp.charge) > 0 ? std::fabs(sp.charge) : 1.0;
      fill([&](int i, int j) { return std::fabs(sim.fields().at(kRho, i, j)) / q; });
      double lo, hi;
      const render::Figure f = field_map(g, v, FieldMapKind::density,
                                         {"density of " + sp.name, when, "n_" + sp.name + " (n_c)"}, lo, hi, map);
      png("density_" + sp.name, f.image,
          chunks("density of " + sp.name, "n_c", f, map_name(FieldMapKind::density), "log10", lo, hi, extent));
    }
    if (wanted("phase_" + sp.name)) {
      const PhaseHistogram h = phase_histogram(sp, g);
      const render::Figure p = phase_image(h, {"x-u_x phase space of " + sp.name, when, "weight per bin (log10)"}, 5, map);
      double top = 0;
      for (double x : h.weight) top = std::max(top, x);
      const std::string pext = "x " + number(h.x_lo / kLambda) + " .. " + number(h.x_hi / kLambda) +
                               " lambda (to the right), u_x " + number(h.u_lo) + " .. " + number(h.u_hi) + " (up)";
      png("phase_" + sp.name, p.image,
          chunks("x-u_x phase space of " + sp.name, "weight per bin (n_c (c/omega0)^2)", p,
                 map_name(FieldMapKind::density) + "; white: empty", "log10 over 5 decades", top * 1e-5, top, pext));
    }
    if (!wanted("spectrum_" + sp.name)) continue;
    const EnergySpectrum spectrum = energy_spectrum(sp, kSpectrumBins);
    double ylo, yhi;
    const render::LinePlot e = spectrum_image(
        spectrum, {"energy spectrum of " + sp.name, when, "dN/dE (n_c (c/\u03c9\u2080)\u00b2 / MeV)"}, ylo, yhi);
    png("spectrum_" + sp.name, e.image,
        {{"Title", "energy spectrum of " + sp.name + " at step " + std::to_string(step) +
                       ", t = " + number(periods) + " periods"},
         {"Software", "nbody pic"},
         {"Quantity", "energy spectrum of " + sp.name + " (dN/dE against E)"},
         {"Unit", "n_c (c/omega0)^2 per MeV (against MeV)"},
         {"Scale", "log10 (dN/dE)"},
         {"Min", number(ylo)},
         {"Max", number(yhi)},
         {"Step", std::to_string(step)},
         {"Time_periods", number(periods)},
         {"Extent", "E 0 .. " + number(spectrum.top_mev) + " MeV (to the right), dN/dE " + number(ylo) +
                        " .. " + number(yhi) + " (up)"},
         {"Bins", std::to_string(kSpectrumBins)},
         {"Plot_box", e.plot.text()}});
  }
  sim.compute_rho();
  return written;
}

void write_images(const std::string& dir, PicSimulation& sim) {
  (void)write_images(ImageRequest{std::filesystem::path(dir) / "images", {}, {}}, sim);
}

}  // namespace nbody::pic
