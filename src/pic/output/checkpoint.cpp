#include "pic/output/checkpoint.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include "core/fnv1a.hpp"
#include "io/atomic_file.hpp"
#include "nbody/error.hpp"

namespace nbody::pic {
namespace {

constexpr char kMagic[8] = {'N', 'B', 'P', 'I', 'C', 'C', 'K', '2'};
constexpr char kIdsMagic[4] = {'I', 'D', 'S', '1'};
constexpr char kRunMagic[4] = {'R', 'U', 'N', '1'};
constexpr char kSumMagic[4] = {'S', 'U', 'M', '1'};
constexpr char kPrecisionMagic[4] = {'P', 'R', 'C', '1'};  // then a uint32: 1 float32
constexpr std::size_t kSumBytes = sizeof kSumMagic + sizeof(std::uint64_t);

std::uint64_t checksum(std::string_view bytes) {
  Fnv1a64 h;
  h.update(bytes);
  return h.value();
}

void put(std::string& out, const void* p, std::size_t n) {
  if (n > 0) out.append(static_cast<const char*>(p), n);
}
template <class T>
void put(std::string& out, T v) {
  put(out, &v, sizeof v);
}
void put_vec(std::string& out, const std::vector<double>& v) {
  put<std::uint64_t>(out, v.size());
  put(out, v.data(), v.size() * sizeof(double));
}

struct Reader {
  const std::string& buf;
  std::size_t pos = 0;
  std::string path;
  void get(void* p, std::size_t n) {
    if (pos + n > buf.size()) throw_input_error("pic checkpoint '" + path + "': truncated");
    if (n > 0) std::memcpy(p, buf.data() + pos, n);  // an empty array may have no storage
    pos += n;
  }
  template <class T>
  T get() {
    T v;
    get(&v, sizeof v);
    return v;
  }
  void get_vec(std::vector<double>& v, const std::string& what) {
    const auto n = get<std::uint64_t>();
    if (n > (buf.size() - pos) / sizeof(double)) throw_input_error("pic checkpoint '" + path + "': truncated " + what);
    v.resize(n);
    get(v.data(), n * sizeof(double));
  }
};

// The shortest text that reads back as v ("1e+300", "nan").
std::string shown(double v) {
  char b[32];
  const auto r = std::to_chars(b, b + sizeof b, v);
  return std::string(b, r.ptr);
}

}  // namespace

// A state that the step can take: every field value and momentum finite, every weight finite and
// not negative, every particle inside the grid (the step leaves each in [lo, lo + length); the
// closed interval allows a wrapped coordinate rounded onto the upper edge). A position outside
// would index cells beyond the arrays; a NaN would spread over the grid. The checksum guards
// against damage in storage, this against a state that was wrong when it was written.
void check_pic_state(const std::string& path, const PicSimulation& sim) {
  const GridGeometry& g = sim.settings().geom;
  const auto refuse = [&](const std::string& what) { throw_input_error("pic checkpoint '" + path + "': " + what); };
  for (int c = 0; c < kComponents; ++c)
    for (std::size_t k = 0; k < sim.fields().data[c].size(); ++k)
      if (!std::isfinite(sim.fields().data[c][k]))
        refuse(std::string(kComponentNames[c]) + "[" + std::to_string(k) + "] = " + shown(sim.fields().data[c][k]) +
               " is not finite");
  for (int c = 0; c < kPsiCount; ++c)
    for (double v : sim.fields().psi[c])
      if (!std::isfinite(v)) refuse("PML memory " + std::to_string(c) + " holds " + shown(v) + ", not finite");
  const double x1 = g.x0 + g.lx(), y1 = g.y0 + g.ly();
  for (const Species& s : sim.species()) {
    const auto bad = [&](std::size_t p, const char* key, double v, const std::string& why) {
      refuse("species '" + s.name + "' particle " + std::to_string(p) + ": " + key + " = " + shown(v) + " " + why);
    };
    for (std::size_t p = 0; p < s.size(); ++p) {
      if (!(s.x[p] >= g.x0 && s.x[p] <= x1))
        bad(p, "x", s.x[p], "is not inside the grid [" + shown(g.x0) + ", " + shown(x1) + "]");
      if (!(s.y[p] >= g.y0 && s.y[p] <= y1))
        bad(p, "y", s.y[p], "is not inside the grid [" + shown(g.y0) + ", " + shown(y1) + "]");
      const double u[3] = {s.ux[p], s.uy[p], s.uz[p]};
      const char* const names[3] = {"ux", "uy", "uz"};
      for (int k = 0; k < 3; ++k)
        if (!std::isfinite(u[k])) bad(p, names[k], u[k], "is not finite");
      if (!(std::isfinite(s.w[p]) && s.w[p] >= 0)) bad(p, "w", s.w[p], "is not a finite weight >= 0");
    }
  }
}

void save_pic_checkpoint(const std::string& path, const PicSimulation& sim, const PicRunRecord* run,
                         ParticlePrecision precision) {
  // Sized once: grown by appending, the buffer would reach up to twice the checkpoint, and hold
  // the old and the new storage at once while it grows (the run's memory plan counts one copy).
  std::size_t bytes = 4096;
  for (int c = 0; c < kComponents; ++c) bytes += 8 + sim.fields().data[c].size() * sizeof(double);
  for (int c = 0; c < kPsiCount; ++c) bytes += 8 + sim.fields().psi[c].size() * sizeof(double);
  for (const Species& s : sim.species()) bytes += s.name.size() + 64 + s.size() * (6 * sizeof(double) + sizeof(std::uint64_t));
  if (run != nullptr) bytes += run->progress.initial_residual.size() * sizeof(double);
  std::string out;
  out.reserve(bytes);
  put(out, kMagic, sizeof kMagic);
  const GridGeometry& g = sim.settings().geom;
  put<std::int32_t>(out, g.nx);
  put<std::int32_t>(out, g.ny);
  put<std::int64_t>(out, sim.step_count());
  put<double>(out, sim.time());
  for (int c = 0; c < kComponents; ++c) put_vec(out, sim.fields().data[c]);
  for (int c = 0; c < kPsiCount; ++c) put_vec(out, sim.fields().psi[c]);  // empty without a PML
  put<std::uint32_t>(out, std::uint32_t(sim.species().size()));
  for (const Species& s : sim.species()) {
    put<std::uint32_t>(out, std::uint32_t(s.name.size()));
    put(out, s.name.data(), s.name.size());
    for (const auto* v : {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w}) put_vec(out, *v);
  }
  // Optional (older readers stop before it): the stable particle ids of a slab-decomposed run.
  const auto& ids = sim.particle_ids();
  if (ids.size() == sim.species().size()) {
    bool match = true;
    for (std::size_t k = 0; k < ids.size(); ++k) match = match && ids[k].size() == sim.species()[k].size();
    if (match) {
      put(out, kIdsMagic, sizeof kIdsMagic);
      for (const auto& v : ids) {
        put<std::uint64_t>(out, v.size());
        put(out, v.data(), v.size() * sizeof(std::uint64_t));
      }
    }
  }
  if (run != nullptr) {
    const PicProgress& p = run->progress;
    put(out, kRunMagic, sizeof kRunMagic);
    put<std::uint32_t>(out, std::uint32_t(run->run_id.size()));
    put(out, run->run_id.data(), run->run_id.size());
    put<std::int64_t>(out, p.diagnostics_rows);
    put<std::int64_t>(out, p.fields_step);
    put<std::int64_t>(out, p.images_step);
    for (double v : {p.energy_in, p.energy_out, p.energy_start, p.rho_scale}) put<double>(out, v);
    put_vec(out, p.initial_residual);
  }
  // Optional (older readers refuse it as bytes after the end: a float32 run is not theirs to resume).
  if (precision == ParticlePrecision::float32) {
    put(out, kPrecisionMagic, sizeof kPrecisionMagic);
    put<std::uint32_t>(out, 1);
  }
  const std::uint64_t sum = checksum(out);
  put(out, kSumMagic, sizeof kSumMagic);
  put<std::uint64_t>(out, sum);
  write_file_atomic(path, out);
}

std::optional<PicRunRecord> load_pic_checkpoint(const std::string& path, PicSimulation& sim, bool check_state,
                                                ParticlePrecision precision) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw_input_error("pic checkpoint '" + path + "': not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_input_error("pic checkpoint '" + path + "': cannot open it");
  // (read into a buffer of the file's size: grown by appending it would reach twice that)
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw_input_error("pic checkpoint '" + path + "': cannot read its size: " + ec.message());
  std::string buf(std::size_t(size), '\0');
  if (size > 0 && !in.read(buf.data(), std::streamsize(size)))
    throw_input_error("pic checkpoint '" + path + "': cannot read it");
  // Checkpoints of earlier releases end without a checksum; every one written now has it.
  if (buf.size() >= kSumBytes && std::memcmp(buf.data() + buf.size() - kSumBytes, kSumMagic, sizeof kSumMagic) == 0) {
    std::uint64_t stored = 0;
    std::memcpy(&stored, buf.data() + buf.size() - sizeof stored, sizeof stored);
    buf.resize(buf.size() - kSumBytes);
    if (checksum(buf) != stored) throw_input_error("pic checkpoint '" + path + "': damaged (its checksum does not match)");
  }
  Reader r{buf, 0, path};
  char magic[8];
  r.get(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) throw_input_error("pic checkpoint '" + path + "': not a PIC checkpoint");
  const auto nx = r.get<std::int32_t>(), ny = r.get<std::int32_t>();
  const GridGeometry& g = sim.settings().geom;
  if (nx != g.nx || ny != g.ny)
    throw_input_error("pic checkpoint '" + path + "': its grid is " + std::to_string(nx) + " x " + std::to_string(ny) +
                      ", the configuration's " + std::to_string(g.nx) + " x " + std::to_string(g.ny));
  const auto step = r.get<std::int64_t>();
  const auto time = r.get<double>();
  for (int c = 0; c < kComponents; ++c) {
    std::vector<double> v;
    r.get_vec(v, kComponentNames[c]);
    if (v.size() != g.size()) throw_input_error("pic checkpoint '" + path + "': field size differs");
    sim.fields().data[c] = std::move(v);
  }
  for (int c = 0; c < kPsiCount; ++c) {
    std::vector<double> v;
    r.get_vec(v, "PML memory");
    if (!v.empty() && v.size() != g.size()) throw_input_error("pic checkpoint '" + path + "': PML memory size differs");
    sim.fields().psi[c] = std::move(v);
  }
  const auto ns = r.get<std::uint32_t>();
  if (ns != sim.species().size())
    throw_input_error("pic checkpoint '" + path + "': " + std::to_string(ns) + " species, the configuration has " +
                      std::to_string(sim.species().size()));
  for (Species& s : sim.species()) {
    const auto len = r.get<std::uint32_t>();
    if (len > 4096) throw_input_error("pic checkpoint '" + path + "': damaged species name");
    std::string name(len, '\0');
    r.get(name.data(), len);
    if (name != s.name) throw_input_error("pic checkpoint '" + path + "': species '" + name + "' where the configuration has '" + s.name + "'");
    for (auto* v : {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w}) r.get_vec(*v, name);
    const std::size_t n = s.x.size();
    for (const auto* v : {&s.y, &s.ux, &s.uy, &s.uz, &s.w})
      if (v->size() != n) throw_input_error("pic checkpoint '" + path + "': damaged species '" + name + "'");
  }
  auto& ids = sim.particle_ids();
  ids.clear();
  if (r.buf.size() - r.pos >= sizeof kIdsMagic && std::memcmp(r.buf.data() + r.pos, kIdsMagic, sizeof kIdsMagic) == 0) {
    r.pos += sizeof kIdsMagic;
    for (const Species& s : sim.species()) {
      const auto n = r.get<std::uint64_t>();
      if (n != s.size()) throw_input_error("pic checkpoint '" + path + "': damaged particle ids of '" + s.name + "'");
      std::vector<std::uint64_t> v(n);
      r.get(v.data(), n * sizeof(std::uint64_t));
      ids.push_back(std::move(v));
    }
  }
  std::optional<PicRunRecord> run;
  if (r.buf.size() - r.pos >= sizeof kRunMagic && std::memcmp(r.buf.data() + r.pos, kRunMagic, sizeof kRunMagic) == 0) {
    r.pos += sizeof kRunMagic;
    PicRunRecord rec;
    const auto len = r.get<std::uint32_t>();
    if (len > 64) throw_input_error("pic checkpoint '" + path + "': damaged run id");
    rec.run_id.resize(len);
    r.get(rec.run_id.data(), len);
    PicProgress& p = rec.progress;
    p.diagnostics_rows = r.get<std::int64_t>();
    p.fields_step = r.get<std::int64_t>();
    p.images_step = r.get<std::int64_t>();
    p.energy_in = r.get<double>(), p.energy_out = r.get<double>();
    p.energy_start = r.get<double>(), p.rho_scale = r.get<double>();
    r.get_vec(p.initial_residual, "Gauss reference");
    if (!p.initial_residual.empty() && p.initial_residual.size() != g.size())
      throw_input_error("pic checkpoint '" + path + "': Gauss reference size differs");
    run = std::move(rec);
  }
  ParticlePrecision written = ParticlePrecision::float64;
  if (r.buf.size() - r.pos >= sizeof kPrecisionMagic &&
      std::memcmp(r.buf.data() + r.pos, kPrecisionMagic, sizeof kPrecisionMagic) == 0) {
    r.pos += sizeof kPrecisionMagic;
    const auto code = r.get<std::uint32_t>();
    if (code != 1) throw_input_error("pic checkpoint '" + path + "': damaged particle precision " + std::to_string(code));
    written = ParticlePrecision::float32;
  }
  if (r.pos != r.buf.size()) throw_input_error("pic checkpoint '" + path + "': damaged (bytes after its end)");
  if (written != precision)
    throw_input_error("pic checkpoint '" + path + "': written by a run with solver.particle_precision = \"" +
                      particle_precision_name(written) + "\", the configuration has \"" +
                      particle_precision_name(precision) + "\" (resume with the precision it was written with)");
  if (!std::isfinite(time)) throw_input_error("pic checkpoint '" + path + "': its time " + shown(time) + " is not finite");
  if (step < 0) throw_input_error("pic checkpoint '" + path + "': its step " + std::to_string(step) + " is negative");
  if (check_state) check_pic_state(path, sim);
  sim.set_time(time, step);
  return run;
}

}  // namespace nbody::pic
