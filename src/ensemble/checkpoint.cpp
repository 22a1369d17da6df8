#include "ensemble/checkpoint.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

#include "core/fnv1a.hpp"
#include "io/atomic_file.hpp"
#include "nbody/error.hpp"

namespace nbody::ensemble {
namespace {

constexpr char kMagic[8] = {'N', 'B', 'E', 'N', 'S', 'M', 'B', '1'};
static_assert(sizeof(double) == 8, "float64 doubles");

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_doubles(std::string& out, const std::vector<double>& v) {
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& path) : b_(bytes), path_(path) {}
  template <class T>
  T get() {
    T v;
    need(sizeof v);
    std::memcpy(&v, b_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  void doubles(std::vector<double>& v, std::size_t n) {
    need(n * sizeof(double));
    v.resize(n);
    std::memcpy(v.data(), b_.data() + at_, n * sizeof(double));
    at_ += n * sizeof(double);
  }
  std::string text(std::size_t n) {
    need(n);
    std::string s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw_input_error("ensemble checkpoint '" + path_ + "': " + what);
  }

 private:
  void need(std::size_t n) const {
    if (n > b_.size() - at_) fail("truncated");
  }
  const std::string& b_;
  std::string path_;
  std::size_t at_ = 0;
};

}  // namespace

void save_ensemble_checkpoint(const std::string& path, const EnsembleCheckpoint& c) {
  const EnsembleStore& s = c.store;
  std::string out(kMagic, sizeof kMagic);
  put(out, std::uint32_t(c.run_id.size()));
  out += c.run_id;
  put(out, c.interval);
  put(out, s.systems());
  put(out, s.bodies());
  for (const std::int64_t o : s.offset) put(out, o);
  for (const auto* v : {&s.m, &s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz}) put_doubles(out, *v);
  for (const SystemState& st : s.state) {
    put(out, st.t), put(out, st.dt), put(out, st.e0), put(out, st.l0), put(out, st.steps);
    put(out, std::int64_t(st.status)), put(out, st.stop_time);
  }
  put(out, fnv1a64(out));
  write_file_atomic(path, out);
}

EnsembleCheckpoint load_ensemble_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_input_error("ensemble checkpoint '" + path + "': cannot open it");
  std::ostringstream o;
  o << in.rdbuf();
  const std::string bytes = o.str();
  Reader r(bytes, path);
  if (bytes.size() < sizeof kMagic + 8 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    r.fail("not an ensemble checkpoint");
  std::uint64_t sum = 0;
  std::memcpy(&sum, bytes.data() + bytes.size() - 8, 8);
  if (fnv1a64(std::string_view(bytes.data(), bytes.size() - 8)) != sum) r.fail("damaged (its checksum does not match)");
  (void)r.text(sizeof kMagic);
  EnsembleCheckpoint c;
  c.run_id = r.text(r.get<std::uint32_t>());
  c.interval = r.get<std::int64_t>();
  const auto systems = r.get<std::int64_t>(), bodies = r.get<std::int64_t>();
  if (systems < 1 || bodies < 0 || std::uint64_t(bodies) > bytes.size() / 8 || std::uint64_t(systems) > bytes.size() / 8)
    r.fail("damaged (its sizes)");
  EnsembleStore& s = c.store;
  s.offset.resize(std::size_t(systems) + 1);
  for (auto& v : s.offset) v = r.get<std::int64_t>();
  if (s.offset.front() != 0 || s.offset.back() != bodies) r.fail("damaged (its offsets)");
  for (std::size_t k = 0; k + 1 < s.offset.size(); ++k)
    if (s.offset[k + 1] < s.offset[k]) r.fail("damaged (its offsets)");
  for (auto* v : {&s.m, &s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz}) r.doubles(*v, std::size_t(bodies));
  s.state.resize(std::size_t(systems));
  for (SystemState& st : s.state) {
    st.t = r.get<double>(), st.dt = r.get<double>(), st.e0 = r.get<double>(), st.l0 = r.get<double>();
    st.steps = r.get<std::int64_t>();
    st.status = int(r.get<std::int64_t>());
    st.stop_time = r.get<double>();
  }
  return c;
}

}  // namespace nbody::ensemble
