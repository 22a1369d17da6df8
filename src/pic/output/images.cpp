#include "pic/output/images.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "nbody/error.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {
namespace {

struct Stop {
  double t;
  double r, g, b;
};

Rgb interpolate(const Stop* stops, int n, double t) {
  if (!(t >= stops[0].t)) t = stops[0].t;  // NaN too
  if (t > stops[n - 1].t) t = stops[n - 1].t;
  int k = 0;
  while (k < n - 2 && t > stops[k + 1].t) ++k;
  const Stop& a = stops[k];
  const Stop& b = stops[k + 1];
  const double f = (t - a.t) / (b.t - a.t);
  auto c = [f](double x, double y) { return std::uint8_t(std::lround(x + f * (y - x))); };
  return {c(a.r, b.r), c(a.g, b.g), c(a.b, b.b)};
}

constexpr Stop kSequential[] = {
    {0.0, 255, 255, 255}, {0.25, 255, 220, 120}, {0.5, 245, 140, 50}, {0.75, 200, 40, 40}, {1.0, 80, 0, 40}};
constexpr Stop kDiverging[] = {
    {-1.0, 30, 50, 170}, {-0.5, 110, 150, 230}, {0.0, 255, 255, 255}, {0.5, 235, 120, 100}, {1.0, 160, 20, 30}};

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

}  // namespace

Rgb sequential_colour(double t) { return interpolate(kSequential, 5, t); }
Rgb diverging_colour(double t) { return interpolate(kDiverging, 5, t); }

void field_image_size(const GridGeometry& g, int& width, int& height) {
  width = std::min(g.nx, 2048);
  const double h = std::round(width * (g.ly() / g.lx()));
  height = int(std::clamp(h, 32.0, 2048.0));
}

void pixel_node(const GridGeometry& g, int width, int height, int px, int py, int& i, int& j) {
  i = std::min(g.nx - 1, int((px + 0.5) * g.nx / width));
  j = g.ny - 1 - std::min(g.ny - 1, int((py + 0.5) * g.ny / height));
}

png::Image field_map(const GridGeometry& g, const std::vector<double>& values, bool signed_map, double& range) {
  range = 0;
  for (double v : values)
    if (std::isfinite(v)) range = std::max(range, std::fabs(v));
  const double scale = range > 0 ? 1.0 / range : 0.0;
  int w, h;
  field_image_size(g, w, h);
  png::Image img(w, h);
  for (int py = 0; py < h; ++py)
    for (int px = 0; px < w; ++px) {
      int i, j;
      pixel_node(g, w, h, px, py, i, j);
      const double v = values[std::size_t(j) * std::size_t(g.nx) + std::size_t(i)] * scale;
      const Rgb c = signed_map ? diverging_colour(v) : sequential_colour(v);
      img.set(px, py, c[0], c[1], c[2]);
    }
  return img;
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

png::Image phase_image(const PhaseHistogram& h, double decades) {
  png::Image img(h.nx_bins, h.nu_bins);
  double top = 0;
  for (double v : h.weight) top = std::max(top, v);
  for (int iu = 0; iu < h.nu_bins; ++iu)
    for (int ix = 0; ix < h.nx_bins; ++ix) {
      const double v = h.weight[std::size_t(iu) * std::size_t(h.nx_bins) + std::size_t(ix)];
      if (!(v > 0)) continue;  // white
      // 0.1 at `decades` below the top (and below), 1 at the top: an occupied bin is never white.
      const double t = std::clamp(1.0 + std::log10(v / top) / decades, 0.0, 1.0);
      const Rgb c = sequential_colour(0.1 + 0.9 * t);
      img.set(ix, h.nu_bins - 1 - iu, c[0], c[1], c[2]);
    }
  return img;
}

void write_images(const std::string& dir, PicSimulation& sim) {
  namespace fs = std::filesystem;
  const fs::path out = fs::path(dir) / "images";
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw_runtime_error("pic: cannot create '" + out.string() + "': " + ec.message());
  const GridGeometry& g = sim.settings().geom;
  const std::int64_t step = sim.step_count();
  const double periods = sim.time() / (2 * kPi);
  const std::string extent = "x " + number(g.x0 / (2 * kPi)) + " .. " + number((g.x0 + g.lx()) / (2 * kPi)) +
                             " lambda (to the right), y " + number(g.y0 / (2 * kPi)) + " .. " +
                             number((g.y0 + g.ly()) / (2 * kPi)) + " lambda (up)";
  auto common = [&](const std::string& what, const std::string& unit, const std::string& map, double lo, double hi) {
    png::TextChunks t = {{"Title", what + " at step " + std::to_string(step) + ", t = " + number(periods) + " periods"},
                         {"Software", "nbody pic"},
                         {"Quantity", what},
                         {"Unit", unit},
                         {"Colormap", map},
                         {"Min", number(lo)},
                         {"Max", number(hi)},
                         {"Step", std::to_string(step)},
                         {"Time_periods", number(periods)},
                         {"Extent", extent}};
    return t;
  };
  std::vector<double> v(std::size_t(g.nx) * std::size_t(g.ny));
  auto fill = [&](auto&& f) {
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) v[std::size_t(j) * std::size_t(g.nx) + std::size_t(i)] = f(i, j);
  };
  const Fields& fl = sim.fields();
  const char* e_unit = "m_e c omega0 / e";
  const char* diverging = "diverging blue-white-red, symmetric: Min dark blue, 0 white, Max dark red";
  const char* sequential = "sequential white-yellow-red: 0 white, Max dark red";
  for (int c : {int(kEy), int(kEz), int(kBz)}) {
    fill([&](int i, int j) { return fl.at(c, i, j); });
    double r;
    const png::Image img = field_map(g, v, true, r);
    const std::string name = kComponentNames[c];
    png::write(out / image_name(name, step), img,
               common(name, c == kBz ? "m_e omega0 / e" : e_unit, diverging, -r, r));
  }
  {
    fill([&](int i, int j) {
      const double ex = fl.at(kEx, i, j), ey = fl.at(kEy, i, j), ez = fl.at(kEz, i, j);
      return std::sqrt(ex * ex + ey * ey + ez * ez);
    });
    double r;
    const png::Image img = field_map(g, v, false, r);
    png::write(out / image_name("E_abs", step), img, common("|E|", e_unit, sequential, 0, r));
  }
  for (int k = 0; k < int(sim.species().size()); ++k) {
    const Species& sp = sim.species()[std::size_t(k)];
    sim.compute_rho(k);
    const double q = std::fabs(sp.charge) > 0 ? std::fabs(sp.charge) : 1.0;
    fill([&](int i, int j) { return std::fabs(sim.fields().at(kRho, i, j)) / q; });
    double r;
    const png::Image img = field_map(g, v, false, r);
    png::write(out / image_name("density_" + sp.name, step), img,
               common("density of " + sp.name, "n_c", sequential, 0, r));
    const PhaseHistogram h = phase_histogram(sp, g);
    double top = 0;
    for (double x : h.weight) top = std::max(top, x);
    png::TextChunks t = common("x-u_x phase space of " + sp.name, "weight per bin (n_c (c/omega0)^2)",
                               "log10 sequential over 5 decades: Max dark red, Max/1e5 and below pale, white empty", 0, top);
    t.back() = {"Extent", "x " + number(h.x_lo / (2 * kPi)) + " .. " + number(h.x_hi / (2 * kPi)) +
                              " lambda (to the right), u_x " + number(h.u_lo) + " .. " + number(h.u_hi) + " (up)"};
    png::write(out / image_name("phase_" + sp.name, step), phase_image(h), t);
  }
  sim.compute_rho();
}

}  // namespace nbody::pic
