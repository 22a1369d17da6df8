#include "io/tipsy.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>

#include "io/atomic_file.hpp"
#include "nbody/error.hpp"
#include "particles/memory.hpp"

namespace nbody {
namespace {

template <class U>
U swap_bytes(U v) {
  auto bytes = std::bit_cast<std::array<unsigned char, sizeof(U)>>(v);
  std::reverse(bytes.begin(), bytes.end());
  return std::bit_cast<U>(bytes);
}

template <class V>
V load(const char* p, ByteOrder order) {
  V v;
  std::memcpy(&v, p, sizeof v);
  const bool native = (order == ByteOrder::big) == (std::endian::native == std::endian::big);
  return native ? v : swap_bytes(v);
}

template <class V>
void store(std::string& out, V v, ByteOrder order) {
  const bool native = (order == ByteOrder::big) == (std::endian::native == std::endian::big);
  if (!native) v = swap_bytes(v);
  char buf[sizeof v];
  std::memcpy(buf, &v, sizeof v);
  out.append(buf, sizeof v);
}

struct Header {
  double time = 0;
  std::int32_t nbodies = 0, ndim = 0, nsph = 0, ndark = 0, nstar = 0;

  static Header decode(const char* p, ByteOrder order) {
    Header h;
    h.time = load<double>(p, order);
    h.nbodies = load<std::int32_t>(p + 8, order);
    h.ndim = load<std::int32_t>(p + 12, order);
    h.nsph = load<std::int32_t>(p + 16, order);
    h.ndark = load<std::int32_t>(p + 20, order);
    h.nstar = load<std::int32_t>(p + 24, order);
    return h;
  }
  [[nodiscard]] std::uintmax_t expected_size() const {
    return kTipsyHeaderBytes + std::uintmax_t(nsph) * kTipsyGasBytes + std::uintmax_t(ndark) * kTipsyDarkBytes +
           std::uintmax_t(nstar) * kTipsyStarBytes;
  }
  // Which record (1-based) a file of `size` bytes cuts short.
  [[nodiscard]] std::uintmax_t first_incomplete_record(std::uintmax_t size) const {
    std::uintmax_t at = kTipsyHeaderBytes, record = 1;
    const std::pair<std::int32_t, std::size_t> kinds[] = {
        {nsph, kTipsyGasBytes}, {ndark, kTipsyDarkBytes}, {nstar, kTipsyStarBytes}};
    for (const auto& [count, bytes] : kinds) {
      if (size < at + std::uintmax_t(count) * bytes) return record + (size - at) / bytes;
      at += std::uintmax_t(count) * bytes;
      record += std::uintmax_t(count);
    }
    return record;
  }
  // Why this reading of the header does not describe a file of `size` bytes; nullopt when it does.
  [[nodiscard]] std::optional<std::string> problem(std::uintmax_t size) const {
    if (ndim != 3) return "not a Tipsy file: header ndim = " + std::to_string(ndim) + " (expected 3)";
    if (nsph < 0 || ndark < 0 || nstar < 0 || nbodies < 0)
      return std::string("corrupt header: a negative particle count");
    if (std::int64_t(nbodies) != std::int64_t(nsph) + ndark + nstar) {
      return "corrupt header: nbodies = " + std::to_string(nbodies) +
             " but nsph + ndark + nstar = " + std::to_string(std::int64_t(nsph) + ndark + nstar);
    }
    const auto want = expected_size();
    if (size < want) {
      return "truncated: the header announces " + std::to_string(nbodies) + " bodies (" + std::to_string(want) +
             " bytes) but the file has " + std::to_string(size) + " bytes; record " +
             std::to_string(first_incomplete_record(size)) + " is incomplete";
    }
    if (size > want) {
      return "corrupt: the header announces " + std::to_string(want) + " bytes, the file has " + std::to_string(size) +
             " (" + std::to_string(size - want) + " bytes too many)";
    }
    return std::nullopt;
  }
};

// The byte order whose reading of the header is consistent, or the error of the likelier one.
ByteOrder choose_order(const char* head, std::uintmax_t size, const std::filesystem::path& path) {
  const Header big = Header::decode(head, ByteOrder::big);
  const Header little = Header::decode(head, ByteOrder::little);
  const auto big_problem = big.problem(size);
  if (!big_problem) return ByteOrder::big;
  const auto little_problem = little.problem(size);
  if (!little_problem) return ByteOrder::little;
  // Report against the reading that at least has ndim = 3.
  throw_file_error(path, little.ndim == 3 && big.ndim != 3 ? *little_problem : *big_problem);
}

std::string read_all(const std::filesystem::path& path, std::uintmax_t size) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (std::uintmax_t(in.gcount()) != size) throw_file_error(path, "read error");
  return bytes;
}

}  // namespace

std::string tipsy_bytes(const Particles<double>& p, const SnapshotMeta& meta, ByteOrder order) {
  const auto n = static_cast<std::int32_t>(p.size());
  std::string out;
  out.reserve(kTipsyHeaderBytes + p.size() * kTipsyDarkBytes);
  store(out, meta.time, order);
  for (const std::int32_t v : {n, 3, 0, n, 0, 0}) store(out, v, order);
  const float eps = meta.config != nullptr ? static_cast<float>(meta.config->softening) : 0.0f;
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (const double v : {p.m[i], p.x[i], p.y[i], p.z[i], p.vx[i], p.vy[i], p.vz[i]}) {
      store(out, static_cast<float>(v), order);
    }
    store(out, eps, order);
    store(out, 0.0f, order);  // phi
  }
  return out;
}

void write_tipsy(const std::filesystem::path& path, const Particles<double>& p, const SnapshotMeta& meta) {
  if (p.size() > std::size_t(INT32_MAX))
    throw_runtime_error("cannot write '" + path.string() + "': too many bodies for Tipsy");
  write_file_atomic(path, tipsy_bytes(p, meta));
}

bool looks_like_tipsy(const std::filesystem::path& path, std::uintmax_t size) {
  if (size < kTipsyHeaderBytes) return false;
  std::ifstream in(path, std::ios::binary);
  char head[kTipsyHeaderBytes];
  if (!in.read(head, sizeof head)) return false;
  return !Header::decode(head, ByteOrder::big).problem(size) || !Header::decode(head, ByteOrder::little).problem(size);
}

ParticleFileData read_tipsy(const std::filesystem::path& path, std::uintmax_t size) {
  if (size < kTipsyHeaderBytes) {
    throw_file_error(path, "truncated: " + std::to_string(size) + " bytes, shorter than the 32-byte Tipsy header");
  }
  // The header first: the counts it declares must match the file's size (choose_order) and,
  // with the file's bytes, fit in memory before the whole file is read.
  std::string bytes(kTipsyHeaderBytes, '\0');
  {
    std::ifstream in(path, std::ios::binary);
    if (!in.read(bytes.data(), kTipsyHeaderBytes)) throw_file_error(path, "read error");
  }
  const ByteOrder order = choose_order(bytes.data(), size, path);
  const Header h = Header::decode(bytes.data(), order);
  if (!std::isfinite(h.time)) {
    char text[40];
    std::snprintf(text, sizeof text, "%g", h.time);
    throw_file_error(path, std::string("header time is not a finite number (") + text + ")");
  }
  const std::size_t particle_bytes = 7 * sizeof(double) + sizeof(std::uint64_t);
  require_memory(Location::host(), std::size_t(size) + std::size_t(h.nbodies) * particle_bytes,
                 path.string() + ": " + std::to_string(h.nbodies) + " bodies");
  bytes = read_all(path, size);
  ParticleFileData data;
  data.info.time = h.time;
  data.info.precision = Precision::fp32;
  auto& p = data.particles;
  p.resize(std::size_t(h.nbodies));
  std::size_t at = kTipsyHeaderBytes, i = 0;
  // Where a record keeps its gravitational softening eps (gas records have a smoothing length
  // instead: none).
  struct Kind {
    std::int32_t count;
    std::size_t record_bytes;
    std::optional<std::size_t> eps_at;
  };
  const Kind kinds[] = {{h.nsph, kTipsyGasBytes, std::nullopt},
                        {h.ndark, kTipsyDarkBytes, 28},
                        {h.nstar, kTipsyStarBytes, 36}};
  std::optional<float> eps;   // the same for every dark and star record so far
  bool uniform_eps = true;
  for (const auto& [count, record_bytes, eps_at] : kinds) {
    for (std::int32_t k = 0; k < count; ++k, ++i, at += record_bytes) {
      const char* r = bytes.data() + at;
      p.m[i] = load<float>(r, order);
      p.x[i] = load<float>(r + 4, order);
      p.y[i] = load<float>(r + 8, order);
      p.z[i] = load<float>(r + 12, order);
      p.vx[i] = load<float>(r + 16, order);
      p.vy[i] = load<float>(r + 20, order);
      p.vz[i] = load<float>(r + 24, order);
      p.id[i] = i;
      if (eps_at) {
        const float e = load<float>(r + *eps_at, order);
        if (eps && !(e == *eps)) uniform_eps = false;
        eps = e;
      }
    }
  }
  if (uniform_eps && eps && std::isfinite(*eps) && *eps > 0) data.info.softening = double(*eps);
  validate_particles(p, path, [](std::size_t k) { return "record " + std::to_string(k + 1); });
  return data;
}

}  // namespace nbody
