// A species table of a PIC deck ([[species]]): its keys, and the density profiles given by an
// expression (muparser) or a table file.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <stdexcept>

#include "pic/driver/config.hpp"
#include "pic/driver/config_read.hpp"

namespace nbody::pic {

using namespace deck_read;

namespace {

ParticleBoundary particle_boundary(const std::string& s, const std::string& key) {
  if (s == "periodic") return ParticleBoundary::periodic;
  if (s == "absorb") return ParticleBoundary::absorb;
  if (s == "reflect") return ParticleBoundary::reflect;
  if (s == "thermal") return ParticleBoundary::thermal;
  bad(key, quoted_text(s) + " is not one of periodic, absorb, reflect, thermal");
}

// Reads a 1D density table: one "x, n" row a line (x in wavelengths increasing, n >= 0 in n_c),
// blank lines and lines starting with '#' skipped, a first line that is not two numbers taken as a
// header. Each problem is one line naming the key, the file and the line.
void read_density_table(const std::string& path, const std::string& key, std::vector<double>& xs, std::vector<double>& ns) {
  std::ifstream in(path);
  if (!in) bad(key, quoted_text(path) + " cannot be opened (no such file or not readable)");
  xs.clear(), ns.clear();
  std::string line;
  int number = 0;
  bool content = false;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::string where = quoted_text(path) + " line " + std::to_string(number);
    double v[2] = {0, 0};
    int got = 0;
    std::size_t pos = 0;
    bool ok = true;
    for (; got < 3 && pos <= line.size(); ++got) {
      const std::size_t comma = line.find(',', pos);
      const std::string cell = line.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      char* end = nullptr;
      const double d = std::strtod(cell.c_str(), &end);
      if (end == cell.c_str() || cell.find_first_not_of(" \t", std::size_t(end - cell.c_str())) != std::string::npos) ok = false;
      if (got < 2) v[got] = d;
      if (comma == std::string::npos) {
        ++got;
        break;
      }
      pos = comma + 1;
    }
    if (!ok || got != 2) {
      if (!content) {  // a header
        content = true;
        continue;
      }
      bad(key, where + ": " + quoted_text(line) + " is not two numbers x, n");
    }
    content = true;
    if (!std::isfinite(v[0]) || !std::isfinite(v[1])) bad(key, where + ": " + quoted_text(line) + " is not finite");
    if (!xs.empty() && !(v[0] > xs.back()))
      bad(key, where + ": x = " + g(v[0]) + " does not increase (the line before has " + g(xs.back()) + ")");
    if (v[1] < 0) bad(key, where + ": n = " + g(v[1]) + " is negative");
    xs.push_back(v[0]), ns.push_back(v[1]);
  }
  if (xs.size() < 2) bad(key, quoted_text(path) + " has " + std::to_string(xs.size()) + " rows: at least 2 are needed");
}

}  // namespace

std::string resolved_path(const std::string& file, const std::string& deck) {
  const std::filesystem::path p(file);
  if (p.is_absolute()) return file;
  const std::filesystem::path dir = std::filesystem::path(deck).parent_path();
  return std::filesystem::absolute(dir / p).lexically_normal().string();
}

void read_species(const toml::table& t, SpeciesConfig& s, const std::string& where, const std::string& deck) {
  static const std::set<std::string> known = {
      "name", "type", "charge", "mass", "ppc_x", "ppc_y", "ppc", "regular", "immobile", "profile", "density",
      "x_start", "x_end", "y_min", "y_max", "ramp", "scale", "table_x", "table_n", "temperature_keV",
      "drift_ux", "drift_uy", "drift_uz", "boundary_xmin", "boundary_xmax", "boundary_ymin", "boundary_ymax",
      "seed", "density_expr", "table_file"};
  for (const auto& [k, v] : t) {
    const std::string key = where + "." + std::string(k.str());
    if (!known.count(std::string(k.str()))) bad(key, "unknown key");
    const std::string name(k.str());
    if (name == "name") s.name = text(&v, key);
    else if (name == "type") s.type = text(&v, key);
    else if (name == "charge") s.charge = num(&v, key);
    else if (name == "mass") s.mass = num(&v, key);
    else if (name == "ppc_x") s.ppc_x = int32(&v, key);
    else if (name == "ppc_y") s.ppc_y = int32(&v, key);
    else if (name == "ppc") {
      // ppc = N: as square a sub-lattice as N allows (ppc_x >= ppc_y).
      const std::int64_t n = integer(&v, key);
      if (n < 1) bad(key, "must be >= 1");
      int py = int(std::floor(std::sqrt(double(n))));
      while (n % py) --py;
      s.ppc_y = py;
      s.ppc_x = int(n / py);
    } else if (name == "regular") s.regular = boolean(&v, key);
    else if (name == "immobile") s.immobile = boolean(&v, key);
    else if (name == "profile") {
      if (!parse_profile_kind(text(&v, key), s.profile.kind))
        bad(key, quoted_text(text(&v, key)) + " is not one of uniform, step, linear, exponential, table, expression");
    } else if (name == "density") s.profile.n0 = num(&v, key);
    else if (name == "x_start") s.profile.x_start = num(&v, key);
    else if (name == "x_end") s.profile.x_end = num(&v, key);
    else if (name == "y_min") s.profile.y_min = num(&v, key);
    else if (name == "y_max") s.profile.y_max = num(&v, key);
    else if (name == "ramp") s.profile.ramp = num(&v, key);
    else if (name == "scale") s.profile.scale = num(&v, key);
    else if (name == "table_x") s.profile.xs = numbers(&v, key);
    else if (name == "table_n") s.profile.ns = numbers(&v, key);
    else if (name == "temperature_keV") s.temperature_keV = num(&v, key);
    else if (name == "drift_ux") s.drift[0] = num(&v, key);
    else if (name == "drift_uy") s.drift[1] = num(&v, key);
    else if (name == "drift_uz") s.drift[2] = num(&v, key);
    else if (name == "boundary_xmin") s.bc.side[0] = particle_boundary(text(&v, key), key);
    else if (name == "boundary_xmax") s.bc.side[1] = particle_boundary(text(&v, key), key);
    else if (name == "boundary_ymin") s.bc.side[2] = particle_boundary(text(&v, key), key);
    else if (name == "boundary_ymax") s.bc.side[3] = particle_boundary(text(&v, key), key);
    else if (name == "seed") s.seed = std::uint64_t(integer(&v, key));
    else if (name == "density_expr") {
      s.density_expr = text(&v, key);
      try {
        s.profile.expression = std::make_shared<const DensityExpression>(s.density_expr);
      } catch (const std::invalid_argument& e) {
        bad(key, quoted_text(s.density_expr) + ": " + e.what() + " (an expression of x and y in wavelengths)");
      }
    } else if (name == "table_file") {
      s.table_file = text(&v, key);
      read_density_table(resolved_path(s.table_file, deck), key, s.profile.xs, s.profile.ns);
    }
  }
}


void validate_density(const PicConfig& c, const SpeciesConfig& s, const std::string& where) {
  const DensityProfile& p = s.profile;
  if (p.kind == ProfileKind::expression && !p.expression)
    bad(where + ".density_expr", "is needed for profile = \"expression\" (an expression of x and y in wavelengths, in n_c)");
  if (p.kind != ProfileKind::expression && p.expression)
    bad(where + ".density_expr", "is read only with profile = \"expression\"");
  if (!s.table_file.empty() && p.kind != ProfileKind::table) bad(where + ".table_file", "is read only with profile = \"table\"");
  if (p.kind != ProfileKind::expression) return;
  // Every cell centre: a finite density, not negative.
  for (int j = 0; j < c.ny; ++j)
    for (int i = 0; i < c.nx; ++i) {
      const double x = c.x0 + (i + 0.5) * c.dx, y = c.y0 + (j + 0.5) * c.dy;
      const double n = p(x, y);
      if (!std::isfinite(n) || n < 0)
        bad(where + ".density_expr", quoted_text(s.density_expr) + " is " + g(n) + " at x = " + g(x) + ", y = " + g(y) +
                                         " (a density must be finite and >= 0 in every cell)");
    }
}

double density_peak(const PicConfig& c, const SpeciesConfig& s) {
  const DensityProfile& p = s.profile;
  if (p.kind == ProfileKind::table) {
    double n = 0;
    for (double v : p.ns) n = std::max(n, v);
    return n;
  }
  if (p.kind != ProfileKind::expression || !p.expression) return p.n0;
  double n = 0;
  for (int j = 0; j < c.ny; ++j)
    for (int i = 0; i < c.nx; ++i) {
      const double v = p(c.x0 + (i + 0.5) * c.dx, c.y0 + (j + 0.5) * c.dy);
      if (std::isfinite(v)) n = std::max(n, v);
    }
  return n;
}

}  // namespace nbody::pic
