// The PIC configuration file (toml++ stays in this translation unit).
#include "pic/driver/config.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "comm/communicator.hpp"
#include "config/deck_identity.hpp"
#include "config/set_value.hpp"
#include "core/strings.hpp"
#include "nbody/error.hpp"
#include "pic/driver/config_read.hpp"
#include "pic/parallel/domain.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/output/images.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {
namespace {

using namespace deck_read;

FieldBoundary field_boundary(const std::string& s, const std::string& key) {
  if (s == "periodic") return FieldBoundary::periodic;
  if (s == "open") return FieldBoundary::open;
  bad(key, quoted_text(s) + " is not one of periodic, open" + std::string(key == "grid.boundary_x" ? ", pml" : ""));
}

void read_table(const toml::table& root, PicConfig& c) {
  static const std::set<std::string> tables = {"units",   "grid",     "time",   "solver", "laser",
                                               "balance", "parallel", "output", "species"};
  for (const auto& [k, v] : root) {
    if (!tables.count(std::string(k.str())))
      bad(std::string(k.str()),
          "unknown table (expected units, grid, time, solver, laser, balance, parallel, output, [[species]])");
    if (std::string(k.str()) != "species" && !v.is_table()) bad(std::string(k.str()), "must be a table");
  }
  auto each = [&](const char* table, auto&& f) {
    if (const toml::table* t = root[table].as_table())
      for (const auto& [k, v] : *t) f(std::string(table) + "." + std::string(k.str()), std::string(k.str()), &v);
  };
  each("units", [&](const std::string& key, const std::string& k, const toml::node* v) {
    if (k == "wavelength_um") c.wavelength_um = num(v, key);
    else bad(key, "unknown key");
  });
  each("grid", [&](const std::string& key, const std::string& k, const toml::node* v) {
    if (k == "nx") c.nx = int32(v, key);
    else if (k == "ny") c.ny = int32(v, key);
    else if (k == "dx") c.dx = num(v, key);
    else if (k == "dy") c.dy = num(v, key);
    else if (k == "x0") c.x0 = num(v, key);
    else if (k == "y0") c.y0 = num(v, key);
    else if (k == "boundary_x") {
      c.pml_x = text(v, key) == "pml";
      c.field_bc.x = c.pml_x ? FieldBoundary::open : field_boundary(text(v, key), key);
    } else if (k == "pml_cells") c.pml_cells = int32(v, key);
    else if (k == "boundary_y") c.field_bc.y = field_boundary(text(v, key), key);
    else bad(key, "unknown key");
  });
  each("time", [&](const std::string& key, const std::string& k, const toml::node* v) {
    if (k == "dt") c.dt = num(v, key);
    else if (k == "courant") c.courant = num(v, key);
    else if (k == "t_start") c.t_start = num(v, key);
    else if (k == "t_end") c.t_end = num(v, key);
    else if (k == "steps") c.steps = integer(v, key);
    else bad(key, "unknown key");
  });
  each("solver", [&](const std::string& key, const std::string& k, const toml::node* v) {
    const bool numeric = k == "seed" || k == "sort_every" || k == "empty_ratio";
    const std::string s = numeric ? "" : text(v, key);
    if (k == "field") {
      if (s == "yee") c.solver = SolverKind::yee;
      else if (s == "ck") c.solver = SolverKind::ck;
      else bad(key, quoted_text(s) + " is not one of yee, ck");
    } else if (k == "shape") {
      if (s == "cic") c.shape = ShapeOrder::cic;
      else if (s == "tsc") c.shape = ShapeOrder::tsc;
      else bad(key, quoted_text(s) + " is not one of cic, tsc");
    } else if (k == "pusher") {
      if (s == "boris") c.pusher = PusherKind::boris;
      else if (s == "vay") c.pusher = PusherKind::vay;
      else if (s == "higuera_cary") c.pusher = PusherKind::higuera_cary;
      else bad(key, quoted_text(s) + " is not one of boris, vay, higuera_cary");
    } else if (k == "device") {
      if (s == "cpu") c.use_gpu = false;
      else if (s == "cuda") c.use_gpu = true;
      else bad(key, quoted_text(s) + " is not one of cpu, cuda");
    } else if (k == "deposit") {
      const auto rows = deposit_kernels();
      if (std::none_of(rows.begin(), rows.end(), [&](const DepositKernelInfo& r) { return r.name == s; }))
        bad(key, quoted_text(s) + " is not one of " + deposit_kernel_names());
      c.deposit = s;
      c.deterministic = s == "deterministic";
    } else if (k == "sort_every") {
      const std::int64_t n = integer(v, key);
      if (n < 0 || n > 1000000000) bad(key, "must be >= 0 (0: sort by empty_ratio only)");
      c.sort_every = int(n);
    } else if (k == "empty_ratio") {
      c.empty_ratio = num(v, key);
      if (!(c.empty_ratio <= 1)) bad(key, "must be <= 1 (a negative value: never sort by the ratio)");
    } else if (k == "particle_precision") {
      if (!parse_particle_precision(s, c.particle_precision)) bad(key, quoted_text(s) + " is not one of float64, float32");
    } else if (k == "seed") c.seed = std::uint64_t(integer(v, key));
    else bad(key, "unknown key");
  });
  if (const toml::table* t = root["laser"].as_table()) read_laser(*t, c);
  each("balance", [&](const std::string& key, const std::string& k, const toml::node* v) {
    if (k == "every") {
      const std::int64_t n = integer(v, key);
      if (n < 0 || n > 1000000000) bad(key, "must be >= 0 (0: never)");
      c.balance.every = int(n);
    } else if (k == "threshold") {
      c.balance.threshold = num(v, key);
      if (!(c.balance.threshold >= 0 && c.balance.threshold <= 100)) bad(key, "must be in [0, 100] (a fraction over the mean)");
    } else if (k == "cell_cost") {
      c.balance.cell_cost = num(v, key);
      if (!(c.balance.cell_cost >= 0 && c.balance.cell_cost <= 1e6)) bad(key, "must be in [0, 1e6] (particles a cell costs)");
    } else {
      bad(key, "unknown key (expected every, threshold, cell_cost)");
    }
  });
  each("parallel", [&](const std::string& key, const std::string& k, const toml::node* v) {
    if (k == "ranks_y") {
      if (v->is_string()) {
        if (text(v, key) != "auto") bad(key, "must be a number of block rows or \"auto\"");
        c.ranks_y = 0;
      } else {
        const std::int64_t n = integer(v, key);
        if (n < 1 || n > 65536) bad(key, "must be >= 1 (the block rows; 1: slabs along x) or \"auto\"");
        c.ranks_y = int(n);
      }
    } else if (k == "exchange") {
      const std::string e = text(v, key);
      if (e == "host") c.exchange = GuardExchange::host;
      else if (e == "ipc") c.exchange = GuardExchange::ipc;
      else if (e == "mpi") c.exchange = GuardExchange::mpi;
      else if (e == "auto") c.exchange = GuardExchange::automatic;
      else
        bad(key, "must be \"host\" (staged through the host), \"ipc\" (GPU to GPU within a node, CUDA IPC), \"mpi\" "
                 "(GPU buffers to CUDA-aware MPI) or \"auto\" (\"mpi\" where the MPI library reports CUDA support, "
                 "else \"host\")");
    } else {
      bad(key, "unknown key (expected ranks_y, exchange)");
    }
  });
  if (const toml::table* t = root["output"].as_table()) read_outputs(*t, c);
  if (const toml::node* sp = root.get("species")) {
    const toml::array* a = sp->as_array();
    if (!a) bad("species", "must be an array of tables ([[species]])");
    int k = 0;
    for (const auto& e : *a) {
      const std::string where = "species[" + std::to_string(k++) + "]";
      const toml::table* t = e.as_table();
      if (!t) bad(where, "must be a table");
      SpeciesConfig s;
      read_species(*t, s, where, c.source);
      c.species.push_back(std::move(s));
    }
  }
  // (the time step's plasma limit needs each expression's largest value on the grid: once)
  for (SpeciesConfig& s : c.species)
    if (s.profile.kind == ProfileKind::expression && s.profile.expression) s.expression_peak = density_peak(c, s);
}

// "table.key=value" or "species.N.key=value" onto the TOML tree, the value parsed as TOML.
void apply_override(toml::table& root, const std::string& o) {
  const auto eq = o.find('=');
  if (eq == std::string::npos) throw_input_error("pic --set " + quoted_text(o) + ": expected table.key=value");
  const std::string path = o.substr(0, eq), value = o.substr(eq + 1);
  const toml::table parsed = read_set_value(value, "pic --set " + quoted_text(o));
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  toml::table* t = &root;
  if (parts.size() == 3 && parts[0] == "species") {
    toml::array* a = root["species"].as_array();
    // N: the index of a [[species]] table, written in decimal digits alone.
    std::size_t idx = 0;
    const std::string& n = parts[1];
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), idx);
    if (n.empty() || ec != std::errc() || end != n.data() + n.size() || !a || idx >= a->size() || !(*a)[idx].as_table())
      throw_input_error("pic --set " + quoted_text(o) + ": no species " + printable(n) + " (species.N.key: N from 0 to the number of " +
                        "[[species]] tables - 1)");
    t = (*a)[idx].as_table();
  } else if (parts.size() == 2 && parts[0] != "species") {
    if (!root.contains(parts[0])) root.insert(parts[0], toml::table{});
    t = root[parts[0]].as_table();
    if (t == nullptr) throw_input_error("pic --set " + quoted_text(o) + ": " + parts[0] + " is not a table");
  } else {
    throw_input_error("pic --set " + quoted_text(o) + ": expected table.key=value or species.N.key=value");
  }
  if (const toml::node* was = t->get(parts.back()); was && (was->is_table() || was->is_array_of_tables()))
    throw_input_error("pic --set " + quoted_text(o) + ": " + path + " is a table, not a value");
  t->insert_or_assign(parts.back(), *parsed.get("v"));
  // The run's length is given one way: an override of one replaces the deck's other.
  if (parts.size() == 2 && parts[0] == "time" && (parts[1] == "steps" || parts[1] == "t_end"))
    t->erase(parts[1] == "steps" ? "t_end" : "steps");
}

// The command line's flags onto the tree: each replaces the deck's value.
void apply_flags(toml::table& root, const PicFlags& f) {
  auto table = [&](const char* name) -> toml::table& {
    if (!root[name].as_table()) root.insert_or_assign(name, toml::table{});
    return *root[name].as_table();
  };
  if (f.steps) {
    toml::table& t = table("time");
    t.insert_or_assign("steps", *f.steps);
    t.erase("t_end");  // (the flag gives the run's length instead)
  }
  if (f.out) table("output").insert_or_assign("dir", *f.out);
}

std::string toml_text(const toml::table& t) {
  std::ostringstream o;
  o << toml::toml_formatter(t) << "\n";
  return o.str();
}

// The deck without what a resumed run may change: the run's length, the outputs, and how the
// work is spread over ranks ([parallel], [balance]: the deterministic deposition gives the same
// bits on any number and shape of blocks).
toml::table identity_of(toml::table root) {
  if (toml::table* t = root["time"].as_table()) {
    t->erase("steps");
    t->erase("t_end");
  }
  for (const char* table : {"output", "parallel", "balance"}) root.erase(table);
  return root;
}

}  // namespace

PicConfig read_pic_config_text(const std::string& text, const std::string& name, const std::vector<std::string>& overrides,
                                const PicFlags& flags) {
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& err) {
    std::ostringstream m;
    m << "pic config '" << name << "': " << err.description() << " (line " << err.source().begin.line << ")";
    throw_input_error(m.str());
  }
  if (const toml::table* t = root["time"].as_table(); t && t->contains("steps") && t->contains("t_end"))
    throw_input_error("pic config '" + name + "': time.steps and time.t_end are both given; give one (--steps or "
                      "--set time.steps replaces time.t_end)");
  for (const std::string& o : overrides) apply_override(root, o);
  apply_flags(root, flags);
  // A table file's path as absolute (relative ones from the deck's directory), so that the run
  // directory's deck.toml, which a resume reads, names the same file.
  if (toml::array* a = root["species"].as_array())
    for (auto& e : *a)
      if (toml::table* t = e.as_table())
        if (const auto f = (*t)["table_file"].value<std::string>()) t->insert_or_assign("table_file", resolved_path(*f, name));
  PicConfig c;
  c.source = name;
  naming_the_deck("pic", name, [&] {  // "pic config 'deck.toml': grid.dx: ..."
    read_table(root, c);
    validate_pic_config(c);
  });
  c.deck = toml_text(root);
  c.deck_identity = toml_text(identity_of(root));
  return c;
}

PicConfig read_pic_config(const std::string& path, const std::vector<std::string>& overrides, const PicFlags& flags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_input_error("pic config '" + path + "': cannot open it (no such file or not readable)");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw_input_error("pic config '" + path + "': cannot read it");
  return read_pic_config_text(text.str(), path, overrides, flags);
}

// omega_p^2 = sum over mobile species of n_max q^2 / m (in omega0^2).
double plasma_omega_max(const PicConfig& c) {
  double w2 = 0;
  for (const SpeciesConfig& s : c.species) {
    if (s.immobile) continue;
    double q = s.charge, m = s.mass;
    double pq = 0, pm = 0;
    if (s.type != "custom" && predefined_species(s.type.empty() ? s.name : s.type, pq, pm)) {
      if (q == 0) q = pq;
      if (m == 0) m = pm;
    }
    if (!(m > 0)) continue;
    double n = s.profile.kind == ProfileKind::expression ? s.expression_peak : s.profile.n0;
    if (s.profile.kind == ProfileKind::table)
      for (double v : s.profile.ns) n = std::max(n, v);
    w2 += n * q * q / m;
  }
  return std::sqrt(w2);
}

double pic_dt(const PicConfig& c) {
  const double dx = c.dx * kTwoPi, dy = c.dy * kTwoPi;
  return c.dt > 0 ? c.dt * kTwoPi : c.courant * max_stable_dt_plasma(c.solver, dx, dy, plasma_omega_max(c));
}

// The steps from t_start to t_end as a float64 (checked before it becomes an integer).
double pic_steps_exact(const PicConfig& c) { return std::ceil((c.t_end - c.t_start) * kTwoPi / pic_dt(c) - 1e-9); }

std::int64_t pic_steps(const PicConfig& c) {
  if (c.steps > 0) return c.steps;
  return std::int64_t(pic_steps_exact(c));
}

void validate_pic_config(const PicConfig& c) {
  if (c.nx < 2) bad("grid.nx", "must be >= 2 (got " + std::to_string(c.nx) + ")");
  if (c.ny < 1) bad("grid.ny", "must be >= 1 (got " + std::to_string(c.ny) + ")");
  // Cell sizes from 1e-6 to 1e3 wavelengths: beyond, the grid's coordinates and the Courant
  // step leave the range in which float64 positions keep their meaning.
  if (!(c.dx >= 1e-6 && c.dx <= 1e3)) bad("grid.dx", g(c.dx) + " must be in [1e-6, 1000] wavelengths");
  if (!(c.dy >= 1e-6 && c.dy <= 1e3)) bad("grid.dy", g(c.dy) + " must be in [1e-6, 1000] wavelengths");
  if (!(std::fabs(c.x0) < 1e9)) bad("grid.x0", "must be within 1e9 wavelengths of 0");
  if (!(std::fabs(c.y0) < 1e9)) bad("grid.y0", "must be within 1e9 wavelengths of 0");
  if (!(c.wavelength_um > 0 && c.wavelength_um < 1e12)) bad("units.wavelength_um", "must be > 0 and finite");
  for (std::size_t k = 0; k < c.species.size(); ++k) {
    const SpeciesConfig& sp = c.species[k];
    const std::string where = "species[" + std::to_string(k) + "]";
    // (n_c units: 1e9 n_c is far beyond solid density at any laser wavelength)
    if (!(sp.profile.n0 >= 0 && sp.profile.n0 <= 1e9)) bad(where + ".density", "must be in [0, 1e9] n_c");
    if (!(sp.temperature_keV >= 0 && sp.temperature_keV <= 1e6)) bad(where + ".temperature_keV", "must be in [0, 1e6] keV");
    for (int d = 0; d < 3; ++d)
      if (!(std::fabs(sp.drift[d]) <= 1e6)) bad(where + ".drift_u" + "xyz"[d], "must be within 1e6 (m_e c units of u)");
  }
  const double cells = double(c.nx + 2 * kGuard) * double(c.ny + 2 * kGuard);
  if (cells > 4e9) bad("grid", "nx x ny = " + std::to_string(cells) + " cells is too large");
  const double dx = c.dx * kTwoPi, dy = c.dy * kTwoPi;
  const double limit = max_stable_dt(c.solver, dx, dy);
  if (c.dt < 0 || (c.dt > 0 && c.dt * kTwoPi < limit * 1e-9))
    bad("time.dt", g(c.dt) + " lambda/c must be > 0 and at least 1e-9 of the stability limit");
  if (c.dt > 0 && c.dt * kTwoPi > limit * (1 + 1e-12)) {
    std::ostringstream m;
    m.precision(6);
    m << c.dt << " lambda/c exceeds the " << solver_name(c.solver) << " stability limit " << limit / kTwoPi
      << " lambda/c for dx = " << c.dx << ", dy = " << c.dy
      << (c.solver == SolverKind::yee ? " (use solver.field = \"ck\" to run at c dt = dx)" : "");
    bad("time.dt", m.str());
  }
  if (c.dt == 0 && !(c.courant > 0 && c.courant <= 1)) bad("time.courant", "must be in (0, 1]");
  if (c.dt > 0) {
    const double wp = plasma_omega_max(c);
    const double plasma_limit = max_stable_dt_plasma(c.solver, dx, dy, wp);
    if (c.dt * kTwoPi > plasma_limit * (1 + 1e-12)) {
      std::ostringstream m;
      m.precision(6);
      m << c.dt << " lambda/c is unstable with the plasma (omega_p = " << wp << " omega0): the limit is "
        << plasma_limit / kTwoPi << " lambda/c = " << plasma_limit / dx << " dx/c (or set time.courant instead of time.dt)";
      bad("time.dt", m.str());
    }
  }
  if (c.steps < 0) bad("time.steps", "must be >= 0");
  if (c.steps == 0 && !(c.t_end > c.t_start)) bad("time.t_end", "must be after time.t_start (or give time.steps)");
  if (c.steps == 0 && !(pic_steps_exact(c) <= 1e12))
    bad("time.t_end", "is " + g(pic_steps_exact(c)) + " steps of dt away: more than 1e12 steps");
  if (c.steps > 1000000000000LL) bad("time.steps", std::to_string(c.steps) + " is more than 1e12 steps");
  if (c.diag_every < 1) bad("output.diag_every", "must be >= 1");
  if (c.pml_x && (c.pml_cells < 4 || 2 * c.pml_cells >= c.nx)) bad("grid.pml_cells", "must be >= 4 and leave room inside the grid");
  if (const int ranks = comm::world().size(); ranks > 1) {
    if (c.use_gpu && !deposit_kernel_info(deposit_kernel(c.deposit)).over_blocks())
      bad("solver.deposit", "'" + c.deposit + "' does not run on GPUs over several processes: use " +
                                deposit_kernels_over_blocks() + " under mpirun");
    // ("auto" picks among the shapes that pass, scored at the start of the run: the slabs' problem
    // when none passes)
    int rows = c.ranks_y;
    for (int r = 1; rows == 0 && r <= ranks; ++r)
      if (block_shape_problem(c.nx, c.ny, ranks, r).first.empty()) rows = r;
    if (const auto [key, why] = block_shape_problem(c.nx, c.ny, ranks, rows > 0 ? rows : 1); !key.empty()) bad(key, why);
  }
  if (c.particle_precision == ParticlePrecision::float32 && !cells_fit_32_bits(c.nx, c.ny))
    bad("solver.particle_precision", "\"float32\" packs a cell's row and column in 32 bits: " + std::to_string(c.nx) +
                                         " x " + std::to_string(c.ny) + " cells do not fit");
  if (c.particle_precision == ParticlePrecision::float32 && !c.use_gpu)
    bad("solver.particle_precision", "\"float32\" is the GPU path's particle store: it needs solver.device = \"cuda\" "
                                     "(the CPU path stores float64)");
  if (c.exchange == GuardExchange::mpi) {
    if (!c.use_gpu) bad("parallel.exchange", "\"mpi\" moves GPU buffers: it needs solver.device = \"cuda\"");
    // (device pointers to an MPI that does not take them crash inside the library: refused
    // before the run, on one process too, so that a configuration fails where it is tried)
    if (const comm::DeviceBufferSupport s = comm::world().device_buffer_support(); !s.supported)
      bad("parallel.exchange", "\"mpi\" hands GPU buffers to MPI, but " + s.how +
                                   ": use \"auto\" (CUDA-aware MPI where reported, else through the host) or \"host\" "
                                   "(NBODY_MPI_CUDA_AWARE=1 where the library is CUDA-aware without reporting it)");
  }
  if (c.exchange == GuardExchange::ipc) {
    if (!c.use_gpu) bad("parallel.exchange", "\"ipc\" moves GPU buffers: it needs solver.device = \"cuda\"");
    const comm::Communicator& w = comm::world();
    if (w.size() > 1 && w.local_size() != w.size())
      bad("parallel.exchange", "\"ipc\" needs every process on one node (" + std::to_string(w.local_size()) + " of " +
                                   std::to_string(w.size()) + " share this one): use \"host\" across nodes");
  }
  if (c.use_gpu) {
    std::string why;
    if (!pic_gpu_available(&why)) {
      if (comm::world().size() > 1) bad("solver.device", "cuda over several processes needs a CUDA device on every process: " + why);
      bad("solver.device", "cuda is not available: " + why);
    }
  }
  if (c.fields_every < 0) bad("output.fields_every", "must be >= 0");
  if (c.checkpoint_every < 0) bad("output.checkpoint_every", "must be >= 0");
  if (c.images_every < 0) bad("output.images_every", "must be >= 0 (steps between PNG images; 0: none)");
  if (std::string why; c.images_every > 0 && !images_available(&why))
    bad("output.images_every", std::to_string(c.images_every) + " asks for images, but " + why);
  if ((c.fields_every > 0 || c.checkpoint_every > 0 || c.images_every > 0) && c.out_dir.empty())
    bad("output.dir", "is needed for fields_every / checkpoint_every / images_every (or pass --out)");
  validate_laser(c);
  validate_outputs(c);
  if (c.species.empty()) bad("species", "at least one [[species]] is needed");
  std::set<std::string> names;
  for (std::size_t k = 0; k < c.species.size(); ++k) {
    const SpeciesConfig& s = c.species[k];
    const std::string where = "species[" + std::to_string(k) + "]";
    if (s.name.empty()) bad(where + ".name", "is missing");
    if (!names.insert(s.name).second) bad(where + ".name", "'" + s.name + "' is used twice");
    double q = 0, m = 0;
    const bool known = predefined_species(s.type.empty() ? s.name : s.type, q, m);
    if (!known && s.type.empty() && (s.charge == 0 || s.mass == 0))
      bad(where, "'" + s.name + "' is no predefined species (electron, positron, proton, deuteron, triton): give type, or charge and mass");
    if (!s.type.empty() && s.type != "custom" && !known) bad(where + ".type", "'" + s.type + "' is no predefined species");
    if (s.type == "custom" && !(s.mass > 0)) bad(where + ".mass", "must be > 0");
    if (s.ppc_x < 1 || s.ppc_y < 1) bad(where + ".ppc", "must be >= 1 particle per cell");
    validate_density(c, s, where);
    if (!(s.profile.n0 > 0) && s.profile.kind != ProfileKind::table && s.profile.kind != ProfileKind::expression)
      bad(where + ".density", "must be > 0 (in n_c)");
    if (s.profile.kind == ProfileKind::table) {
      if (s.profile.xs.size() < 2 || s.profile.xs.size() != s.profile.ns.size())
        bad(where + ".table_x", "table_x and table_n need the same number (>= 2) of points");
      for (std::size_t i = 1; i < s.profile.xs.size(); ++i)
        if (!(s.profile.xs[i] > s.profile.xs[i - 1])) bad(where + ".table_x", "must increase");
    }
    if ((s.profile.kind == ProfileKind::linear || s.profile.kind == ProfileKind::exponential) && !(s.profile.ramp > 0))
      bad(where + ".ramp", "must be > 0 for a " + std::string(s.profile.kind == ProfileKind::linear ? "linear" : "exponential") + " profile");
    if (s.profile.kind == ProfileKind::exponential && !(s.profile.scale > 0)) bad(where + ".scale", "must be > 0");
    if (s.temperature_keV < 0) bad(where + ".temperature_keV", "must be >= 0");
    // A species without particles: no cell centre with a positive density.
    bool any = false;
    for (int j = 0; j < c.ny && !any; ++j)
      for (int i = 0; i < c.nx && !any; ++i) {
        DensityProfile p = s.profile;
        const double xc = c.x0 + (i + 0.5) * c.dx, yc = c.y0 + (j + 0.5) * c.dy;
        any = p(xc, yc) > 0;
      }
    if (!any) bad(where, "'" + s.name + "' has no particles: its density is zero in every cell of the grid");
    const bool periodic[2] = {c.field_bc.x == FieldBoundary::periodic, c.field_bc.y == FieldBoundary::periodic};
    for (int side = 0; side < 4; ++side)
      if ((s.bc.side[side] == ParticleBoundary::periodic) != periodic[side / 2])
        bad(where + ".boundary_" + std::string(side == 0 ? "xmin" : side == 1 ? "xmax" : side == 2 ? "ymin" : "ymax"),
            periodic[side / 2] ? "must be periodic on a periodic field axis"
                               : "cannot be periodic on an open field axis (use absorb, reflect or thermal)");
  }
}

int block_rows(const PicConfig& c, int processes) {
  if (processes < 2) return 1;
  if (c.ranks_y > 0) return c.ranks_y;
  if (c.use_gpu) return 1;
  // With the load balance on, the block columns' starts follow the work along x ([balance]), down
  // to slabs of kMinSlabColumns columns: a shape's block row then costs its share of a block
  // column, or its heaviest run of kMinSlabColumns columns, whichever is more.
  const bool balanced = c.balance.every > 0;
  // The shapes that fit, the work summed in one pass over the cells: per block, or with the load
  // balance per block row and cell column (memory: rows x nx numbers a shape, whatever ny).
  struct Shape {
    int rows = 1, columns = 1;
    std::vector<int> bx, by;  // the block column of each cell column, the block row of each cell row
    std::vector<double> work;  // per block, or per block row and cell column
  };
  std::vector<Shape> shapes;
  for (int rows = 1; rows <= processes; ++rows) {
    if (!block_shape_problem(c.nx, c.ny, processes, rows).first.empty()) continue;
    Shape sh;
    sh.rows = rows, sh.columns = processes / rows;
    auto owners = [](int n, int parts) {
      std::vector<int> o(static_cast<std::size_t>(n));
      for (int p = 0; p < parts; ++p) {
        const comm::Block b = comm::block_of(n, parts, p);
        for (std::int64_t k = b.first; k < b.first + b.count; ++k) o[std::size_t(k)] = p;
      }
      return o;
    };
    sh.bx = owners(c.nx, sh.columns);
    sh.by = owners(c.ny, rows);
    sh.work.assign(balanced ? std::size_t(rows) * std::size_t(c.nx) : std::size_t(processes), 0.0);
    shapes.push_back(std::move(sh));
  }
  if (shapes.empty()) return 0;
  for (int j = 0; j < c.ny; ++j)
    for (int i = 0; i < c.nx; ++i) {
      double w = c.balance.cell_cost;
      const double xc = c.x0 + (i + 0.5) * c.dx, yc = c.y0 + (j + 0.5) * c.dy;
      for (const SpeciesConfig& s : c.species)
        if (!s.immobile && s.profile(xc, yc) > 0) w += double(s.ppc_x) * double(s.ppc_y);
      for (Shape& sh : shapes) {
        const int by = sh.by[std::size_t(j)];
        sh.work[balanced ? std::size_t(by) * std::size_t(c.nx) + std::size_t(i)
                         : std::size_t(by * sh.columns + sh.bx[std::size_t(i)])] += w;
      }
    }
  int best = 0;
  double best_cost = 0, best_cuts = 0;
  for (const Shape& sh : shapes) {
    double cost = 0;
    if (!balanced) {
      cost = *std::max_element(sh.work.begin(), sh.work.end());
    } else {
      for (int by = 0; by < sh.rows; ++by) {
        const double* col = sh.work.data() + std::size_t(by) * std::size_t(c.nx);
        double band = 0, run = 0, heaviest = 0;
        const int width = sh.columns > 1 ? std::min(kMinSlabColumns, c.nx) : c.nx;
        for (int i = 0; i < c.nx; ++i) {
          band += col[i];
          run += col[i] - (i >= width ? col[i - width] : 0.0);
          heaviest = std::max(heaviest, run);
        }
        cost = std::max(cost, std::max(band / sh.columns, heaviest));
      }
    }
    const double cuts = double(sh.columns - 1) * double(c.ny) + double(sh.rows - 1) * double(c.nx);
    // (a cost within 1e-9 of the best is a tie)
    if (best == 0 || cost < best_cost * (1 - 1e-9) || (cost <= best_cost * (1 + 1e-9) && cuts < best_cuts))
      best = sh.rows, best_cost = cost, best_cuts = cuts;
  }
  return best;
}

PicSettings pic_settings(const PicConfig& c) {
  PicSettings s;
  s.geom.nx = c.nx;
  s.geom.ny = c.ny;
  s.geom.dx = c.dx * kTwoPi;
  s.geom.dy = c.dy * kTwoPi;
  s.geom.x0 = c.x0 * kTwoPi;
  s.geom.y0 = c.y0 * kTwoPi;
  s.dt = pic_dt(c);
  s.t0 = c.t_start * kTwoPi;
  s.solver = c.solver;
  s.shape = c.shape;
  s.pusher = c.pusher;
  s.field_bc = c.field_bc;
  s.field_bc.pml_cells_x = c.pml_x ? c.pml_cells : 0;
  s.seed = c.seed;
  s.laser = c.laser;
  laser_in_code_units(c, s.laser, s.geom.x0);
  return s;
}

std::vector<SpeciesLoad> pic_species_loads(const PicConfig& c) {
  std::vector<SpeciesLoad> out;
  for (const SpeciesConfig& sc : c.species) {
    Species sp;
    sp.name = sc.name;
    double q = sc.charge, m = sc.mass;
    if (sc.type != "custom" && predefined_species(sc.type.empty() ? sc.name : sc.type, q, m)) {
      if (sc.charge != 0) q = sc.charge;
      if (sc.mass != 0) m = sc.mass;
    }
    sp.charge = q;
    sp.mass = m;
    sp.immobile = sc.immobile;
    sp.bc = sc.bc;
    // sqrt(T / m c^2), m_e c^2 = 510.999 keV; an immobile background is loaded cold.
    const double uth = sc.immobile ? 0.0 : std::sqrt(sc.temperature_keV / (510.99895 * m));
    sp.thermal_u = uth;
    LoadSpec load;
    load.profile = sc.profile;
    DensityProfile& p = load.profile;
    p.x_start *= kTwoPi, p.x_end *= kTwoPi, p.y_min *= kTwoPi, p.y_max *= kTwoPi, p.ramp *= kTwoPi, p.scale *= kTwoPi;
    for (double& x : p.xs) x *= kTwoPi;
    p.expression_length = kTwoPi;  // (the expression's x and y are in wavelengths)
    load.ppc_x = sc.ppc_x;
    load.ppc_y = sc.ppc_y;
    load.regular = sc.regular;
    for (int k = 0; k < 3; ++k) load.u_thermal[k] = uth, load.u_drift[k] = sc.immobile ? 0.0 : sc.drift[k];
    load.seed = sc.seed ^ (c.seed * 0x9e3779b97f4a7c15ULL);
    out.push_back({std::move(sp), std::move(load)});
  }
  return out;
}

PicSimulation build_pic_simulation(const PicConfig& c, bool load_particles, const CellWindow* window) {
  PicSimulation sim(pic_settings(c));
  for (SpeciesLoad& s : pic_species_loads(c)) {
    const int index = sim.add_species(std::move(s.species));
    if (load_particles) sim.load(index, s.load, window);
  }
  return sim;
}

}  // namespace nbody::pic
