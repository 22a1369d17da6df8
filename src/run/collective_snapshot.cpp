#include "run/collective_snapshot.hpp"

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "io/gadget_hdf5.hpp"
#include "nbody/config.hpp"
#include "nbody/error.hpp"

namespace nbody::runloop {
namespace {

// The snapshot's path and metadata as bytes: fields of fixed size, then the configuration's
// key/value lines (config_to_lines, read back exactly by config_from_lines), then the path.
struct Job {
  std::filesystem::path file;
  SnapshotMeta meta;
  std::optional<RunConfig> config;
};

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
T take(std::string_view& in) {
  if (in.size() < sizeof(T)) throw_runtime_error("collective snapshot: truncated metadata from rank 0");
  T v;
  std::memcpy(&v, in.data(), sizeof v);
  in.remove_prefix(sizeof v);
  return v;
}
void put_text(std::string& out, std::string_view text) {
  put<std::uint64_t>(out, text.size());
  out.append(text);
}
std::string_view take_text(std::string_view& in) {
  const auto n = take<std::uint64_t>(in);
  if (in.size() < n) throw_runtime_error("collective snapshot: truncated metadata from rank 0");
  const std::string_view text = in.substr(0, n);
  in.remove_prefix(n);
  return text;
}

std::string encode(const std::filesystem::path& file, const SnapshotMeta& meta) {
  std::string out;
  put<std::int32_t>(out, static_cast<std::int32_t>(meta.precision));
  put<double>(out, meta.time);
  put<std::int32_t>(out, meta.units.has_value() ? 1 : 0);
  const UnitSystemCgs u = meta.units.value_or(UnitSystemCgs{});
  for (const double v : {u.UnitLength_in_cm, u.UnitMass_in_g, u.UnitVelocity_in_cm_per_s, u.UnitTime_in_s}) {
    put<double>(out, v);
  }
  put<std::int32_t>(out, u.physical ? 1 : 0);
  put<std::int32_t>(out, meta.config != nullptr ? 1 : 0);
  put_text(out, meta.config != nullptr ? config_to_lines(*meta.config) : std::string());
  put_text(out, file.string());
  return out;
}

Job decode(std::string_view in) {
  Job job;
  job.meta.precision = static_cast<Precision>(take<std::int32_t>(in));
  job.meta.time = take<double>(in);
  const bool has_units = take<std::int32_t>(in) != 0;
  UnitSystemCgs u;
  u.UnitLength_in_cm = take<double>(in);
  u.UnitMass_in_g = take<double>(in);
  u.UnitVelocity_in_cm_per_s = take<double>(in);
  u.UnitTime_in_s = take<double>(in);
  u.physical = take<std::int32_t>(in) != 0;
  if (has_units) job.meta.units = u;
  const bool has_config = take<std::int32_t>(in) != 0;
  const std::string_view lines = take_text(in);
  if (has_config) job.config = config_from_lines(lines, "rank 0's configuration");
  job.file = std::string(take_text(in));
  return job;
}

// Without HDF5 in the build collective_snapshot() is false and these are never reached.
void write_collective(const std::filesystem::path& file, const Particles<double>& p, const SnapshotMeta& meta,
                      comm::Communicator& c) {
#if NBODY_HAVE_HDF5
  write_gadget_hdf5_collective(file, p, meta, c);
#else
  (void)file, (void)p, (void)meta, (void)c;
  throw_runtime_error("collective snapshot: this build of nbody has no HDF5");
#endif
}

}  // namespace

bool collective_snapshot(const comm::Communicator& c, ParticleFormat format) {
  return format == ParticleFormat::hdf5 && parallel_hdf5_available() && c.size() > 1 && c.native_handle() != nullptr;
}

void lead_collective_snapshot(comm::Communicator& c, const std::filesystem::path& file, const Particles<double>& p,
                              const SnapshotMeta& meta) {
  (void)c.broadcast_value<std::int64_t>(kSignalSnapshot, 0);
  (void)c.broadcast_bytes(encode(file, meta), 0);
  write_collective(file, p, meta, c);
}

void follow_collective_snapshot(comm::Communicator& c, const Particles<double>& p) {
  Job job = decode(c.broadcast_bytes(std::string(), 0));
  if (job.config) job.meta.config = &*job.config;
  write_collective(job.file, p, job.meta, c);
}

}  // namespace nbody::runloop
