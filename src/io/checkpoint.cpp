#include "io/checkpoint.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "core/fnv1a.hpp"
#include "io/atomic_file.hpp"
#include "io/components.hpp"
#include "core/strings.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

constexpr std::string_view kMagic = "NBODYCKP";
constexpr std::uint32_t kByteOrderMark = 0x01020304;

// ---- encoding ------------------------------------------------------------------------

class Encoder {
 public:
  template <class V>
  void put(V v) {
    static_assert(std::is_trivially_copyable_v<V>);
    char buf[sizeof v];
    std::memcpy(buf, &v, sizeof v);
    out_.append(buf, sizeof v);
  }
  template <class V>
  void put_array(const std::vector<V>& v) {
    // An empty vector's data() may be null, which append (like memcpy) must not be given.
    if (!v.empty()) out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(V));
  }
  void put_bytes(std::string_view b) { out_.append(b); }
  // A section: tag, then its size, then what `body` writes.
  template <class Body>
  void section(std::string_view tag, Body&& body) {
    out_.append(tag);
    const std::size_t size_at = out_.size();
    put(std::uint64_t{0});
    body();
    const std::uint64_t size = out_.size() - size_at - sizeof(std::uint64_t);
    std::memcpy(out_.data() + size_at, &size, sizeof size);
  }
  std::string& text() { return out_; }

 private:
  std::string out_;
};

template <class T>
void put_particles(Encoder& e, const Particles<T>& p) {
  e.put(static_cast<std::uint32_t>(sizeof(T)));
  e.put(static_cast<std::uint64_t>(p.size()));
  for (const auto* v : {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.m}) e.put_array(*v);
  e.put_array(p.id);
  if (p.component.empty()) {
    e.put_array(std::vector<std::uint8_t>(p.size(), 0));  // every body of component 0
  } else {
    e.put_array(p.component);
  }
}

void put_component_names(Encoder& e, const std::vector<std::string>& names) {
  e.put(static_cast<std::uint32_t>(names.size()));
  for (const auto& name : names) {
    e.put(static_cast<std::uint32_t>(name.size()));
    e.put_bytes(name);
  }
}

// ---- decoding ------------------------------------------------------------------------

class Decoder {
 public:
  Decoder(std::string_view bytes, const std::string& source, std::string what)
      : bytes_(bytes), source_(source), what_(std::move(what)) {}

  [[noreturn]] void fail(const std::string& why) const { throw_input_error(source_ + ": " + why); }

  template <class V>
  V get() {
    V v;
    std::memcpy(&v, take(sizeof v).data(), sizeof v);
    return v;
  }
  std::string_view take(std::size_t n) {
    if (n > bytes_.size() - at_) fail("malformed " + what_ + " (ends too early)");
    const auto s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }
  template <class V>
  void get_array(std::vector<V>& v, std::size_t n) {
    if (n > (bytes_.size() - at_) / sizeof(V)) fail("malformed " + what_ + " (ends too early)");
    v.resize(n);
    // memcpy must not be given the null data() of an empty vector, even for 0 bytes.
    if (n > 0) std::memcpy(v.data(), take(n * sizeof(V)).data(), n * sizeof(V));
  }
  [[nodiscard]] bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  const std::string& source_;
  std::string what_;
  std::size_t at_ = 0;
};

// Version 2 has no components: every body is of component 0.
template <class T>
Particles<T> get_particles(Decoder& d, std::uint64_t n, std::uint32_t version) {
  Particles<T> p;
  for (auto* v : {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.m}) d.get_array(*v, n);
  d.get_array(p.id, n);
  if (version >= 3) {
    d.get_array(p.component, n);
  } else {
    p.component.assign(n, 0);
  }
  return p;
}

std::vector<std::string> get_component_names(Decoder& d) {
  const auto count = d.get<std::uint32_t>();
  std::vector<std::string> names;
  for (std::uint32_t k = 0; k < count; ++k) {
    const auto len = d.get<std::uint32_t>();
    names.emplace_back(d.take(len));
  }
  return names;
}

// ---- validation: a checkpoint with a good checksum may still hold a state no run can have ----

constexpr int kHermiteMaxLevel = 40;  // hermite4's kMaxLevel: the shortest step is dt / 2^40

template <class T>
void check_particles(const Particles<T>& p, const std::string& source) {
  const auto bad = [&](const std::string& why) { throw_input_error(source + ": checkpoint state: " + why); };
  const char* names[] = {"x", "y", "z", "vx", "vy", "vz"};
  const std::vector<T>* fields[] = {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz};
  for (std::size_t f = 0; f < 6; ++f) {
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!std::isfinite((*fields[f])[i])) bad("particle " + std::to_string(i) + ": " + names[f] + " is not finite");
    }
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(std::isfinite(p.m[i]) && p.m[i] > 0)) bad("particle " + std::to_string(i) + ": mass must be finite and > 0");
  }
  check_component_names(p.component_names, source, "checkpoint state");
  const std::size_t kinds = std::max<std::size_t>(p.component_names.size(), 1);
  if (!p.component.empty() && p.component.size() != p.size()) {
    bad(std::to_string(p.component.size()) + " component values for " + std::to_string(p.size()) + " particles");
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p.component_of(i) >= kinds) {
      bad("particle " + std::to_string(i) + ": component " + std::to_string(p.component_of(i)) + " has no name (" +
          std::to_string(p.component_names.size()) + " names)");
    }
  }
  std::unordered_map<std::uint64_t, std::size_t> seen;
  seen.reserve(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (const auto [it, fresh] = seen.emplace(p.id[i], i); !fresh) {
      bad("duplicate id " + std::to_string(p.id[i]) + " (particles " + std::to_string(it->second) + " and " +
          std::to_string(i) + ")");
    }
  }
}

// The integrator's bytes against the layouts the integrators write: none for euler, leapfrog and
// yoshida4; for hermite4 (once started) u64 n, n i32 levels, u64 n, a and jerk (6 n values of the
// state's type) and n f64 times.
void check_integrator_state(const Checkpoint& ck, std::size_t n, std::size_t value_bytes, const std::string& source) {
  const auto bad = [&](const std::string& why) { throw_input_error(source + ": checkpoint integrator state: " + why); };
  const std::string& tag = ck.integrator.tag;
  const auto& b = ck.integrator.bytes;
  if (tag != ck.config.integrator) bad("of " + quoted_text(tag) + ", the configuration's integrator is " + quoted_text(ck.config.integrator));
  if (tag != "hermite4") {
    if (!b.empty()) bad(std::to_string(b.size()) + " bytes, " + tag + " keeps none");  // (tag: a known integrator)
    return;
  }
  if (b.empty()) return;  // checkpointed before the first step
  const std::size_t expect = 2 * sizeof(std::uint64_t) + n * sizeof(std::int32_t) + n * (6 * value_bytes + sizeof(double));
  std::uint64_t n1 = 0, n2 = 0;
  if (b.size() >= sizeof n1) std::memcpy(&n1, b.data(), sizeof n1);
  const std::size_t second = sizeof n1 + n * sizeof(std::int32_t);
  if (b.size() >= second + sizeof n2) std::memcpy(&n2, b.data() + second, sizeof n2);
  if (b.size() != expect || n1 != n || n2 != n) {
    bad("hermite4 state of " + std::to_string(b.size()) + " bytes, " + std::to_string(expect) + " expected for " +
        std::to_string(n) + " particles");
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t level = 0;
    std::memcpy(&level, b.data() + sizeof n1 + i * sizeof level, sizeof level);
    if (level < 0 || level > kHermiteMaxLevel) {
      bad("hermite4 block level " + std::to_string(level) + " of particle " + std::to_string(i) + " is outside [0, " +
          std::to_string(kHermiteMaxLevel) + "]");
    }
  }
  const std::uint8_t* values = b.data() + second + sizeof n2;
  for (std::size_t i = 0; i < 6 * n; ++i) {
    double v = 0;
    if (value_bytes == sizeof(float)) {
      float f = 0;
      std::memcpy(&f, values + i * sizeof f, sizeof f);
      v = f;
    } else {
      std::memcpy(&v, values + i * sizeof v, sizeof v);
    }
    if (!std::isfinite(v)) bad("hermite4 acceleration or jerk of particle " + std::to_string(i % n) + " is not finite");
  }
  const std::uint8_t* times = values + 6 * n * value_bytes;
  for (std::size_t i = 0; i < n; ++i) {
    double t = 0;
    std::memcpy(&t, times + i * sizeof t, sizeof t);
    if (!std::isfinite(t)) bad("hermite4 time of particle " + std::to_string(i) + " is not finite");
  }
}

}  // namespace

void validate_checkpoint(const Checkpoint& ck, const std::string& source) {
  const auto bad = [&](const std::string& why) { throw_input_error(source + ": checkpoint " + why); };
  if (ck.step < 0) bad("step " + std::to_string(ck.step) + " is negative");
  if (!std::isfinite(ck.time)) bad("time is not finite");
  const RunProgress& pr = ck.progress;
  if (pr.diagnostics_rows < 0 || pr.snapshots < 0) bad("progress counts are negative");
  const Diagnostics& d0 = pr.initial;
  for (const double v : {d0.time, d0.kinetic, d0.potential, d0.total}) {
    if (!std::isfinite(v)) bad("step-0 diagnostics are not finite");
  }
  std::visit(
      [&](const auto& p) {
        if (p.size() == 0) bad("state holds no particles");
        check_particles(p, source);
        using T = typename std::decay_t<decltype(p.m)>::value_type;
        check_integrator_state(ck, p.size(), sizeof(T), source);
      },
      ck.state);
}

std::string encode_checkpoint(const Checkpoint& ck) {
  Encoder e;
  e.put_bytes(kMagic);
  e.put(kCheckpointVersion);
  e.put(kByteOrderMark);
  e.section("CONF", [&] { e.put_bytes(config_to_lines(ck.config)); });
  e.section("STEP", [&] {
    e.put(ck.step);
    e.put(ck.time);
  });
  e.section("PART", [&] { std::visit([&](const auto& p) { put_particles(e, p); }, ck.state); });
  e.section("CNAM", [&] { std::visit([&](const auto& p) { put_component_names(e, p.component_names); }, ck.state); });
  e.section("INTG", [&] {
    e.put(static_cast<std::uint32_t>(ck.integrator.tag.size()));
    e.put_bytes(ck.integrator.tag);
    e.put(static_cast<std::uint64_t>(ck.integrator.bytes.size()));
    e.put_array(ck.integrator.bytes);
  });
  if (!ck.solver.tag.empty()) {
    e.section("SOLV", [&] {
      e.put(static_cast<std::uint32_t>(ck.solver.tag.size()));
      e.put_bytes(ck.solver.tag);
      e.put(static_cast<std::uint64_t>(ck.solver.bytes.size()));
      e.put_array(ck.solver.bytes);
    });
  }
  e.section("PROG", [&] {
    const Diagnostics& d0 = ck.progress.initial;
    e.put(d0.step);
    for (const double v : {d0.time, d0.kinetic, d0.potential, d0.total}) e.put(v);
    for (const auto* a : {&d0.momentum, &d0.angular, &d0.com}) {
      for (const double v : *a) e.put(v);
    }
    e.put(d0.virial_ratio);
    for (const double r : ck.progress.initial_radii) e.put(r);
    e.put(ck.progress.diagnostics_rows);
    e.put(ck.progress.snapshots);
  });
  if (!ck.run_id.empty()) e.section("RUNI", [&] { e.put_bytes(ck.run_id); });
  e.put(fnv1a64(e.text()));
  return std::move(e.text());
}

Checkpoint decode_checkpoint(std::string_view bytes, const std::string& source) {
  constexpr std::size_t kPreamble = kMagic.size() + 2 * sizeof(std::uint32_t);
  if (bytes.empty()) throw_input_error(source + ": empty file");
  if (bytes.substr(0, kMagic.size()) != kMagic.substr(0, std::min(kMagic.size(), bytes.size()))) {
    throw_input_error(source + ": not an nbody checkpoint (wrong magic)");
  }
  if (bytes.size() < kPreamble + sizeof(std::uint64_t)) throw_input_error(source + ": truncated checkpoint");
  Decoder head(bytes.substr(0, kPreamble), source, "header");
  head.take(kMagic.size());
  const auto version = head.get<std::uint32_t>();
  const auto mark = head.get<std::uint32_t>();
  if (mark != kByteOrderMark) throw_input_error(source + ": checkpoint written on a machine of the other byte order");
  if (version < kCheckpointOldestVersion || version > kCheckpointVersion) {
    throw_input_error(source + ": checkpoint format version " + std::to_string(version) +
                      ", this build reads versions " + std::to_string(kCheckpointOldestVersion) + " to " +
                      std::to_string(kCheckpointVersion));
  }
  const auto body = bytes.substr(0, bytes.size() - sizeof(std::uint64_t));
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + body.size(), sizeof stored);
  if (fnv1a64(body) != stored) throw_input_error(source + ": checksum mismatch (truncated or damaged checkpoint)");

  Checkpoint ck;
  bool have[4] = {false, false, false, false};
  std::vector<std::string> component_names;
  Decoder d(body.substr(kPreamble), source, "checkpoint");
  while (!d.done()) {
    const std::string tag(d.take(4));
    const auto size = d.get<std::uint64_t>();
    Decoder s(d.take(size), source, tag + " section");
    if (tag == "CONF") {
      ck.config = config_from_lines(s.take(size), source);
      have[0] = true;
    } else if (tag == "STEP") {
      ck.step = s.get<std::int64_t>();
      ck.time = s.get<double>();
      have[1] = true;
    } else if (tag == "PART") {
      const auto width = s.get<std::uint32_t>();
      const auto n = s.get<std::uint64_t>();
      if (width == 4) {
        ck.state = get_particles<float>(s, n, version);
      } else if (width == 8) {
        ck.state = get_particles<double>(s, n, version);
      } else {
        s.fail("PART section: values of " + std::to_string(width) + " bytes");
      }
      have[2] = true;
    } else if (tag == "INTG") {
      const auto len = s.get<std::uint32_t>();
      ck.integrator.tag = std::string(s.take(len));
      const auto n = s.get<std::uint64_t>();
      s.get_array(ck.integrator.bytes, n);
    } else if (tag == "SOLV") {
      const auto len = s.get<std::uint32_t>();
      ck.solver.tag = std::string(s.take(len));
      const auto n = s.get<std::uint64_t>();
      s.get_array(ck.solver.bytes, n);
    } else if (tag == "PROG") {
      Diagnostics& d0 = ck.progress.initial;
      d0.step = s.get<std::int64_t>();
      for (auto* v : {&d0.time, &d0.kinetic, &d0.potential, &d0.total}) *v = s.get<double>();
      for (auto* a : {&d0.momentum, &d0.angular, &d0.com}) {
        for (double& v : *a) v = s.get<double>();
      }
      d0.virial_ratio = s.get<double>();
      for (double& r : ck.progress.initial_radii) r = s.get<double>();
      ck.progress.diagnostics_rows = s.get<std::int64_t>();
      ck.progress.snapshots = s.get<std::int64_t>();
      have[3] = true;
    } else if (tag == "CNAM") {
      component_names = get_component_names(s);
    } else if (tag == "RUNI") {
      ck.run_id = std::string(s.take(size));
    }
    // Unknown sections are skipped (written by a later version that added them).
  }
  if (!(have[0] && have[1] && have[2] && have[3])) throw_input_error(source + ": checkpoint lacks a required section");
  std::visit([&](auto& p) { p.component_names = std::move(component_names); }, ck.state);
  return ck;
}

void write_checkpoint(const std::filesystem::path& path, const Checkpoint& ck) {
  write_file_atomic(path, encode_checkpoint(ck));
}

Checkpoint read_checkpoint(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_input_error(path.string() + ": cannot open checkpoint");
  std::stringstream ss;
  ss << in.rdbuf();
  Checkpoint ck = decode_checkpoint(ss.str(), path.string());
  validate_checkpoint(ck, path.string());
  return ck;
}

}  // namespace nbody
