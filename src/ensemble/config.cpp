// The ensemble configuration file (toml++ stays in this translation unit).
#include "ensemble/config.hpp"

#include <toml++/toml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "config/deck_identity.hpp"
#include "config/set_value.hpp"
#include "core/strings.hpp"
#include "nbody/error.hpp"

namespace nbody::ensemble {
namespace {

[[noreturn]] void bad(const std::string& key, const std::string& what) {
  throw_input_error("ensemble config: " + key + ": " + what);
}
std::string shown(const toml::node* n) {
  std::ostringstream o;
  n->visit([&](const auto& v) { o << v; });
  return o.str();
}
double num(const toml::node* n, const std::string& key) {
  if (auto v = n->value<double>(); v && !n->is_boolean()) {
    if (!std::isfinite(*v)) bad(key, shown(n) + " is not a finite number");
    return *v;
  }
  bad(key, shown(n) + " is not a number");
}
// A number in [lo, hi] (`what` says the range in words).
double num_in(const toml::node* n, const std::string& key, double lo, double hi, const char* what) {
  const double v = num(n, key);
  if (!(v >= lo && v <= hi)) bad(key, format_line("%.6g ", v) + what);
  return v;
}
double positive(const toml::node* n, const std::string& key) {
  const double v = num(n, key);
  if (!(v > 0)) bad(key, format_line("%.6g must be > 0", v));
  return v;
}
std::int64_t integer(const toml::node* n, const std::string& key, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  if (n->is_integer()) v = *n->value<std::int64_t>();
  else if (auto d = n->value<double>(); d && !n->is_boolean() && std::isfinite(*d) && std::floor(*d) == *d && std::fabs(*d) < 9e15)
    v = std::int64_t(*d);
  else bad(key, shown(n) + " is not an integer");
  if (v < lo || v > hi) bad(key, std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}
std::string text(const toml::node* n, const std::string& key) {
  if (auto v = n->value<std::string>()) return *v;
  bad(key, shown(n) + " is not a string");
}
bool boolean(const toml::node* n, const std::string& key) {
  if (auto v = n->value<bool>()) return *v;
  bad(key, shown(n) + " is not true or false");
}
std::vector<double> numbers(const toml::node* n, const std::string& key) {
  const toml::array* a = n->as_array();
  if (!a) bad(key, "must be an array of numbers");
  std::vector<double> out;
  for (const auto& e : *a) out.push_back(num(&e, key));
  return out;
}

using Reader = std::function<void(const std::string& key, const toml::node* v)>;

// Each table's keys with their readers; a key that is not listed is refused.
void read_tables(const toml::table& root, const std::map<std::string, std::map<std::string, Reader>>& tables) {
  for (const auto& [k, v] : root) {
    const std::string name(k.str());
    const auto t = tables.find(name);
    if (t == tables.end()) {
      std::string known;
      for (const auto& [n, _] : tables) known += (known.empty() ? "" : ", ") + n;
      bad(name, "unknown table (expected " + known + ")");
    }
    const toml::table* tt = v.as_table();
    if (!tt) bad(name, "must be a table");
    for (const auto& [key, value] : *tt) {
      const std::string kn(key.str());
      const auto r = t->second.find(kn);
      if (r == t->second.end()) {
        std::string known;
        for (const auto& [n, _] : t->second) known += (known.empty() ? "" : ", ") + n;
        bad(name + "." + kn, "unknown key (expected " + known + ")");
      }
      r->second(name + "." + kn, &value);
    }
  }
}

void read_config(const toml::table& root, EnsembleConfig& c) {
  ScatteringSpec& sc = c.scattering;
  PlanetarySpec& pl = c.planetary;
  Params& p = c.params;
  double softening = 0;
  read_tables(root, {
    {"ensemble", {
      {"generator", [&](auto& k, auto* v) {
        const std::string s = text(v, k);
        if (s == "scattering") c.generator = Generator::scattering;
        else if (s == "planetary") c.generator = Generator::planetary;
        else if (s == "plummer") c.generator = Generator::plummer;
        else if (s == "table") c.generator = Generator::table;
        else bad(k, quoted_text(s) + " is not one of scattering, planetary, plummer, table");
      }},
      {"systems", [&](auto& k, auto* v) { c.systems = integer(v, k, 1, std::int64_t(1) << 40); }},
      {"seed", [&](auto& k, auto* v) { c.seed = std::uint64_t(integer(v, k, 0, INT64_MAX)); }},
      {"table", [&](auto& k, auto* v) { c.table = text(v, k); }},
    }},
    {"scattering", {
      {"m1", [&](auto& k, auto* v) { sc.m1 = positive(v, k); }},
      {"m2", [&](auto& k, auto* v) { sc.m2 = positive(v, k); }},
      {"m3", [&](auto& k, auto* v) { sc.m3 = positive(v, k); }},
      {"a", [&](auto& k, auto* v) { sc.a = positive(v, k); }},
      {"e", [&](auto& k, auto* v) {
        if (v->is_string()) {
          if (text(v, k) != "thermal") bad(k, quoted_text(text(v, k)) + " is not a number in [0, 1) nor \"thermal\"");
          sc.thermal_e = true;
        } else {
          sc.e = num_in(v, k, 0, 0.999999, "must be in [0, 1) (or \"thermal\")");
        }
      }},
      {"v_inf", [&](auto& k, auto* v) { sc.v_inf = positive(v, k); }},
      {"b_min", [&](auto& k, auto* v) { sc.b_min = num_in(v, k, 0, 1e12, "must be >= 0 (in units of a)"); }},
      {"b_max", [&](auto& k, auto* v) { sc.b_max = num_in(v, k, 0, 1e12, "must be >= 0 (in units of a)"); }},
      {"r0", [&](auto& k, auto* v) { sc.r0 = positive(v, k); }},
    }},
    {"planetary", {
      {"star_mass", [&](auto& k, auto* v) { pl.star_mass = positive(v, k); }},
      {"mass", [&](auto& k, auto* v) { pl.mass = numbers(v, k); }},
      {"a", [&](auto& k, auto* v) { pl.a = numbers(v, k); }},
      {"e", [&](auto& k, auto* v) { pl.e = numbers(v, k); }},
      {"inc", [&](auto& k, auto* v) { pl.inc = numbers(v, k); }},
      {"node", [&](auto& k, auto* v) { pl.node = numbers(v, k); }},
      {"peri", [&](auto& k, auto* v) { pl.peri = numbers(v, k); }},
      {"mean", [&](auto& k, auto* v) { pl.mean = numbers(v, k); }},
      {"random_angles", [&](auto& k, auto* v) { pl.random_angles = boolean(v, k); }},
    }},
    {"plummer", {
      {"n", [&](auto& k, auto* v) { c.plummer.n = int(integer(v, k, 2, 1024)); }},
    }},
    {"integrator", {
      {"name", [&](auto& k, auto* v) {
        const std::string s = text(v, k);
        if (s == "leapfrog") p.integrator = Integrator::leapfrog;
        else if (s == "yoshida4") p.integrator = Integrator::yoshida4;
        else if (s == "hermite4") p.integrator = Integrator::hermite4;
        else if (s == "hermite4_adaptive") p.integrator = Integrator::hermite4_adaptive;
        else if (s == "hermite4_symmetric") p.integrator = Integrator::hermite4_symmetric;
        else if (s == "ias15") p.integrator = Integrator::ias15;
        else bad(k, quoted_text(s) + " is not one of leapfrog, yoshida4, hermite4, hermite4_adaptive, hermite4_symmetric, ias15");
      }},
      {"dt", [&](auto& k, auto* v) { p.dt = positive(v, k); }},
      {"eta", [&](auto& k, auto* v) { p.eta = num_in(v, k, 1e-8, 1, "must be in [1e-8, 1]"); }},
      {"eta_start", [&](auto& k, auto* v) { p.eta_start = num_in(v, k, 1e-8, 1, "must be in [1e-8, 1]"); }},
      {"epsilon", [&](auto& k, auto* v) { p.epsilon = positive(v, k); }},
      {"min_dt", [&](auto& k, auto* v) { p.min_dt = positive(v, k); }},
      {"softening", [&](auto& k, auto* v) { softening = num_in(v, k, 0, 1e12, "must be >= 0"); }},
    }},
    {"time", {
      {"t_end", [&](auto& k, auto* v) { p.t_end = positive(v, k); }},
      {"intervals", [&](auto& k, auto* v) { c.intervals = integer(v, k, 1, 1000000000); }},
    }},
    {"stop", {
      {"escape_radius", [&](auto& k, auto* v) { p.escape_radius = num_in(v, k, 0, 1e300, "must be >= 0 (0: no check)"); }},
      {"collision_radius", [&](auto& k, auto* v) { p.collision_radius = num_in(v, k, 0, 1e300, "must be >= 0 (0: no check)"); }},
      {"energy_limit", [&](auto& k, auto* v) { p.energy_limit = num_in(v, k, 0, 1e300, "must be >= 0 (0: no limit)"); }},
    }},
    {"run", {
      {"device", [&](auto& k, auto* v) {
        const std::string s = text(v, k);
        if (s == "cpu") c.use_gpu = false;
        else if (s == "cuda") c.use_gpu = true;
        else bad(k, quoted_text(s) + " is not one of cpu, cuda");
      }},
      {"threads", [&](auto& k, auto* v) { c.threads = int(integer(v, k, 0, 4096)); }},
    }},
    {"output", {
      {"dir", [&](auto& k, auto* v) { c.out_dir = text(v, k); }},
      {"checkpoint_every", [&](auto& k, auto* v) { c.checkpoint_every = integer(v, k, 0, 1000000000); }},
      {"checkpoint_every_s", [&](auto& k, auto* v) { c.checkpoint_every_s = num_in(v, k, 0, 1e9, "must be >= 0 (0: none)"); }},
      {"progress_every", [&](auto& k, auto* v) { c.progress_every = integer(v, k, 0, 1000000000); }},
      {"formats", [&](auto& k, auto* v) {
        const toml::array* a = v->as_array();
        if (!a || a->empty()) bad(k, "must be a non-empty array of \"csv\", \"hdf5\"");
        c.csv = c.hdf5 = false;
        for (const auto& e : *a) {
          const std::string s = text(&e, k);
          if (s == "csv") c.csv = true;
          else if (s == "hdf5") c.hdf5 = true;
          else bad(k, quoted_text(s) + " is not one of csv, hdf5");
        }
      }},
    }},
  });
  p.eps2 = softening * softening;
}

void validate(EnsembleConfig& c) {
  const Params& p = c.params;
  if (c.generator == Generator::table && c.table.empty()) bad("ensemble.table", "generator = \"table\" needs a CSV file");
  if (c.generator != Generator::table && !c.table.empty())
    bad("ensemble.table", "is read only with generator = \"table\"");
  const PlanetarySpec& pl = c.planetary;
  if (c.generator == Generator::planetary) {
    if (pl.mass.empty()) bad("planetary.mass", "no planets (an array of masses)");
    const std::size_t n = pl.mass.size();
    auto same = [&](const std::vector<double>& v, const char* key, bool optional) {
      if ((optional && v.empty()) || v.size() == n) return;
      bad(std::string("planetary.") + key, std::to_string(v.size()) + " values for " + std::to_string(n) + " planets");
    };
    same(pl.a, "a", false), same(pl.e, "e", true), same(pl.inc, "inc", true);
    same(pl.node, "node", true), same(pl.peri, "peri", true), same(pl.mean, "mean", true);
    if (n > 1023) bad("planetary.mass", "at most 1023 planets");
    for (std::size_t i = 0; i < n; ++i) {
      if (!(pl.mass[i] >= 0)) bad("planetary.mass", format_line("%.6g must be >= 0", pl.mass[i]));
      if (!(pl.a[i] > 0)) bad("planetary.a", format_line("%.6g must be > 0", pl.a[i]));
      if (!pl.e.empty() && !(pl.e[i] >= 0 && pl.e[i] < 1)) bad("planetary.e", format_line("%.6g must be in [0, 1)", pl.e[i]));
    }
  }
  if (c.scattering.b_min > c.scattering.b_max)
    bad("scattering.b_min", format_line("%.6g is above b_max = %.6g", c.scattering.b_min, c.scattering.b_max));
  if (c.generator == Generator::scattering && c.scattering.r0 <= c.scattering.b_max)
    bad("scattering.r0", format_line("%.6g must be larger than b_max = %.6g", c.scattering.r0, c.scattering.b_max));
  if (p.dt > p.t_end) bad("integrator.dt", format_line("%.6g is longer than time.t_end = %.6g", p.dt, p.t_end));
  if (p.t_end / double(c.intervals) / p.dt > 1e12)
    bad("integrator.dt", format_line("%.6g makes more than 1e12 steps of an interval (time.t_end / time.intervals = %.6g)",
                                     p.dt, p.t_end / double(c.intervals)));
  if ((p.integrator == Integrator::hermite4_adaptive || p.integrator == Integrator::hermite4_symmetric ||
       p.integrator == Integrator::ias15) &&
      p.min_dt >= p.dt)
    bad("integrator.min_dt", format_line("%.6g must be below integrator.dt = %.6g (the largest step)", p.min_dt, p.dt));
}

// "table.key=value" onto the tree, the value read as TOML (a bare word as a string).
void apply_override(toml::table& root, const std::string& o) {
  const auto eq = o.find('=');
  const auto dot = o.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || dot + 1 == eq)
    throw_input_error("ensemble --set " + quoted_text(o) + ": expected table.key=value");
  const std::string table = o.substr(0, dot), key = o.substr(dot + 1, eq - dot - 1), value = o.substr(eq + 1);
  const toml::table parsed = read_set_value(value, "ensemble --set " + quoted_text(o));
  if (!root.contains(table)) root.insert(table, toml::table{});
  toml::table* t = root[table].as_table();
  if (t == nullptr) throw_input_error("ensemble --set " + quoted_text(o) + ": " + table + " is not a table");
  t->insert_or_assign(key, *parsed.get("v"));
}

std::string toml_text(const toml::table& t) {
  std::ostringstream o;
  o << toml::toml_formatter(t) << "\n";
  return o.str();
}

}  // namespace

EnsembleConfig read_ensemble_config_text(const std::string& text, const std::string& name,
                                         const std::vector<std::string>& overrides, const EnsembleFlags& flags) {
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& err) {
    std::ostringstream m;
    m << "ensemble config '" << name << "': " << err.description() << " (line " << err.source().begin.line << ")";
    throw_input_error(m.str());
  }
  for (const std::string& o : overrides) apply_override(root, o);
  if (flags.out) {
    if (!root["output"].as_table()) root.insert_or_assign("output", toml::table{});
    root["output"].as_table()->insert_or_assign("dir", *flags.out);
  }
  // A table named relative to the configuration file is found beside it (and recorded whole).
  if (toml::table* e = root["ensemble"].as_table()) {
    if (const auto t = (*e)["table"].value<std::string>(); t && !t->empty() && std::filesystem::path(*t).is_relative()) {
      const std::filesystem::path beside = std::filesystem::path(name).parent_path() / *t;
      e->insert_or_assign("table", std::filesystem::absolute(beside).lexically_normal().string());
    }
  }
  EnsembleConfig c;
  c.source = name;
  naming_the_deck("ensemble", name, [&] {
    read_config(root, c);
    validate(c);
  });
  c.deck = toml_text(root);
  toml::table identity = root;
  identity.erase("output");
  identity.erase("run");
  c.deck_identity = toml_text(identity);
  return c;
}

EnsembleConfig read_ensemble_config(const std::string& path, const std::vector<std::string>& overrides,
                                    const EnsembleFlags& flags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_input_error("ensemble config '" + path + "': cannot open it (no such file or not readable)");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw_input_error("ensemble config '" + path + "': cannot read it");
  return read_ensemble_config_text(text.str(), path, overrides, flags);
}

}  // namespace nbody::ensemble
