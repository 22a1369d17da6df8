// The [output] table of a PIC deck: the run directory's cadences, and the named outputs
// [[output.fields]], [[output.particles]] (openPMD dumps of a selection) and [[output.probe]]
// (the fields at a point as a time series). docs/pic.md's deck reference lists every key.
#include <toml++/toml.h>

#include <set>
#include <string>

#include "pic/driver/config.hpp"
#include "pic/driver/config_read.hpp"
#include "pic/output/openpmd.hpp"

namespace nbody::pic {
namespace {

using namespace deck_read;

// A name that is a file or folder name everywhere: letters, digits, '_' and '-', at most 64.
void check_name(const std::string& name, const std::string& key) {
  bool ok = !name.empty() && name.size() <= 64;
  for (char ch : name)
    ok = ok && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-');
  if (!ok) bad(key, quoted_text(name) + " must be 1 to 64 letters, digits, '_' or '-' (it names files)");
}

std::int64_t interval(const toml::node* v, const std::string& key) {
  const std::int64_t n = integer(v, key);
  if (n < 1 || n > 1000000000000LL) bad(key, std::to_string(n) + " must be >= 1 (steps between writes)");
  return n;
}

// An array of component names, each one of `allowed` (grid.hpp's names), none twice.
std::vector<int> components(const toml::node* v, const std::string& key, int last) {
  const toml::array* a = v->as_array();
  if (!a || a->empty()) bad(key, "must be a non-empty array of names (\"Ex\", \"By\", ...)");
  std::string allowed;
  for (int k = 0; k <= last; ++k) allowed += std::string(k ? ", " : "") + kComponentNames[k];
  std::vector<int> out;
  for (const auto& e : *a) {
    const std::string s = text(&e, key);
    int found = -1;
    for (int k = 0; k <= last; ++k)
      if (s == kComponentNames[k]) found = k;
    if (found < 0) bad(key, quoted_text(s) + " is not one of " + allowed);
    for (int k : out)
      if (k == found) bad(key, quoted_text(s) + " is given twice");
    out.push_back(found);
  }
  return out;
}

// The table's "name" and "every" (both required), then its other keys through `rest`.
template <class Rest>
void named_table(const toml::node& e, const std::string& where, std::string& name, std::int64_t& every, Rest&& rest) {
  const toml::table* t = e.as_table();
  if (!t) bad(where, "must be a table");
  for (const auto& [k, v] : *t) {
    const std::string key = where + "." + std::string(k.str());
    if (k.str() == "name") {
      name = text(&v, key);
      check_name(name, key);
    } else if (k.str() == "every") {
      every = interval(&v, key);
    } else {
      rest(key, std::string(k.str()), &v);
    }
  }
  if (name.empty()) bad(where + ".name", "is missing (each named output needs one)");
  if (every == 0) bad(where + ".every", "is missing (steps between writes)");
}

const toml::array* tables_of(const toml::node* v, const std::string& key) {
  const toml::array* a = v->as_array();
  if (!a) bad(key, "must be an array of tables ([[" + key + "]])");
  return a;
}

void read_fields_dumps(const toml::node* v, PicConfig& c) {
  int n = 0;
  for (const auto& e : *tables_of(v, "output.fields")) {
    const std::string where = "output.fields[" + std::to_string(n++) + "]";
    SelectedDumpConfig d;
    d.selection.fields.fill(true);
    named_table(e, where, d.name, d.every, [&](const std::string& key, const std::string& k, const toml::node* x) {
      if (k == "fields") {
        d.selection.fields.fill(false);
        for (int comp : components(x, key, kRho)) d.selection.fields[std::size_t(comp)] = true;
      } else {
        bad(key, "unknown key (expected name, every, fields)");
      }
    });
    c.dumps.push_back(std::move(d));
  }
}

void read_particle_dumps(const toml::node* v, PicConfig& c) {
  int n = 0;
  for (const auto& e : *tables_of(v, "output.particles")) {
    const std::string where = "output.particles[" + std::to_string(n++) + "]";
    SelectedDumpConfig d;
    OpenPmdSelection& s = d.selection;
    s.particles = true;
    bool fraction = false, seed = false;
    named_table(e, where, d.name, d.every, [&](const std::string& key, const std::string& k, const toml::node* x) {
      if (k == "species") {
        const toml::array* a = x->as_array();
        if (!a || a->empty()) bad(key, "must be a non-empty array of species names");
        for (const auto& name : *a) s.species.push_back(text(&name, key));
      } else if (k == "every_kth") {
        const std::int64_t m = integer(x, key);
        if (m < 1) bad(key, std::to_string(m) + " must be >= 1 (1: every particle)");
        s.every_kth = std::uint64_t(m);
      } else if (k == "fraction") {
        s.fraction = num(x, key);
        if (!(s.fraction > 0 && s.fraction <= 1)) bad(key, g(s.fraction) + " must be in (0, 1]");
        fraction = true;
      } else if (k == "seed") {
        const std::int64_t m = integer(x, key);
        if (m < 0) bad(key, std::to_string(m) + " must be >= 0");
        s.seed = std::uint64_t(m);
        seed = true;
      } else if (k == "ids") {
        s.ids = boolean(x, key);
      } else {
        bad(key, "unknown key (expected name, every, species, every_kth, fraction, seed, ids)");
      }
    });
    if (fraction && s.every_kth > 1) bad(where + ".fraction", "give every_kth or fraction, not both");
    if (fraction && !seed) bad(where + ".seed", "is missing: a fraction draws its particles with an explicit seed");
    if (seed && !fraction) bad(where + ".seed", "goes with fraction (every_kth draws nothing)");
    c.dumps.push_back(std::move(d));
  }
}

void read_probes(const toml::node* v, PicConfig& c) {
  int n = 0;
  for (const auto& e : *tables_of(v, "output.probe")) {
    const std::string where = "output.probe[" + std::to_string(n++) + "]";
    ProbeConfig p;
    bool has_x = false, has_y = false;
    named_table(e, where, p.name, p.every, [&](const std::string& key, const std::string& k, const toml::node* x) {
      if (k == "x") p.x = num(x, key), has_x = true;
      else if (k == "y") p.y = num(x, key), has_y = true;
      else if (k == "fields") p.fields = components(x, key, kBz);
      else bad(key, "unknown key (expected name, every, x, y, fields)");
    });
    if (!has_x) bad(where + ".x", "is missing (the probe's position, wavelengths)");
    if (!has_y) bad(where + ".y", "is missing (the probe's position, wavelengths)");
    if (p.fields.empty())
      for (int k = kEx; k <= kBz; ++k) p.fields.push_back(k);
    c.probes.push_back(std::move(p));
  }
}

}  // namespace

void read_outputs(const toml::table& t, PicConfig& c) {
  for (const auto& [k, v] : t) {
    const std::string key = "output." + std::string(k.str());
    if (k.str() == "dir") c.out_dir = text(&v, key);
    else if (k.str() == "diag_every") c.diag_every = integer(&v, key);
    else if (k.str() == "fields_every") c.fields_every = integer(&v, key);
    else if (k.str() == "checkpoint_every") c.checkpoint_every = integer(&v, key);
    else if (k.str() == "images_every") c.images_every = integer(&v, key);
    else if (k.str() == "checkpoint_every_s") c.checkpoint_every_s = num(&v, key);
    else if (k.str() == "fields" || k.str() == "particles" || k.str() == "probe") continue;
    else bad(key, "unknown key");
  }
  // (fields before particles: the order of c.dumps does not depend on the deck's key order)
  if (const toml::node* v = t.get("fields")) read_fields_dumps(v, c);
  if (const toml::node* v = t.get("particles")) read_particle_dumps(v, c);
  if (const toml::node* v = t.get("probe")) read_probes(v, c);
}

void validate_outputs(const PicConfig& c) {
  std::set<std::string> dump_names, probe_names;
  int fields = 0, particles = 0;
  for (const SelectedDumpConfig& d : c.dumps) {
    const bool is_particles = d.selection.particles;
    const std::string where = is_particles ? "output.particles[" + std::to_string(particles++) + "]"
                                           : "output.fields[" + std::to_string(fields++) + "]";
    if (!dump_names.insert(d.name).second)
      bad(where + ".name", quoted_text(d.name) + " is used twice ([[output.fields]] and [[output.particles]] share names)");
    if (c.out_dir.empty()) bad(where, "needs output.dir (or pass --out)");
    if (!openpmd_available()) bad(where, "writes openPMD, which needs HDF5: this build has none");
    for (const std::string& s : d.selection.species) {
      bool known = false;
      for (const SpeciesConfig& sc : c.species) known = known || sc.name == s;
      if (!known) bad(where + ".species", quoted_text(s) + " is no [[species]] of the deck");
    }
  }
  int k = 0;
  for (const ProbeConfig& p : c.probes) {
    const std::string where = "output.probe[" + std::to_string(k++) + "]";
    if (!probe_names.insert(p.name).second) bad(where + ".name", quoted_text(p.name) + " is used twice");
    if (c.out_dir.empty()) bad(where, "needs output.dir (or pass --out)");
    const double x1 = c.x0 + c.nx * c.dx, y1 = c.y0 + c.ny * c.dy;
    if (!(p.x >= c.x0 && p.x < x1))
      bad(where + ".x", g(p.x) + " is outside the grid [" + g(c.x0) + ", " + g(x1) + ") (wavelengths)");
    if (!(p.y >= c.y0 && p.y < y1))
      bad(where + ".y", g(p.y) + " is outside the grid [" + g(c.y0) + ", " + g(y1) + ") (wavelengths)");
  }
}

}  // namespace nbody::pic
