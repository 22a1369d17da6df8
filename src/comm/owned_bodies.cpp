#include "comm/owned_bodies.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "nbody/error.hpp"

namespace nbody::comm {
namespace {

// A body's packed record: id, work, component, then m, x, y, z, vx, vy, vz and the extra fields
// in T. memcpy'd, so no alignment is assumed.
template <class T>
struct Record {
  std::size_t extras = 0;
  [[nodiscard]] std::size_t bytes() const noexcept { return 8 + 8 + 1 + sizeof(T) * (7 + extras); }

  void pack(const OwnedBodies<T>& b, std::size_t i, char* out) const {
    const std::uint64_t id = b.p.id[i], work = b.work.empty() ? 1 : b.work[i];
    const std::uint8_t comp = b.p.component_of(i);
    std::memcpy(out, &id, 8);
    std::memcpy(out + 8, &work, 8);
    std::memcpy(out + 16, &comp, 1);
    T v[7] = {b.p.m[i], b.p.x[i], b.p.y[i], b.p.z[i], b.p.vx[i], b.p.vy[i], b.p.vz[i]};
    std::memcpy(out + 17, v, sizeof v);
    for (std::size_t f = 0; f < extras; ++f) std::memcpy(out + 17 + sizeof v + f * sizeof(T), &b.extra[f][i], sizeof(T));
  }
  void unpack(const char* in, OwnedBodies<T>& b, std::size_t i) const {
    std::memcpy(&b.p.id[i], in, 8);
    std::memcpy(&b.work[i], in + 8, 8);
    std::memcpy(&b.p.component[i], in + 16, 1);
    T v[7];
    std::memcpy(v, in + 17, sizeof v);
    b.p.m[i] = v[0];
    b.p.x[i] = v[1];
    b.p.y[i] = v[2];
    b.p.z[i] = v[3];
    b.p.vx[i] = v[4];
    b.p.vy[i] = v[5];
    b.p.vz[i] = v[6];
    for (std::size_t f = 0; f < extras; ++f) std::memcpy(&b.extra[f][i], in + 17 + sizeof v + f * sizeof(T), sizeof(T));
  }
};

template <class T>
void resize(OwnedBodies<T>& b, std::size_t n) {
  if (b.p.component.size() != b.p.size()) b.p.component.assign(b.p.size(), 0);  // an empty array: every body 0
  b.p.resize(n);
  b.work.resize(n, 1);
  for (auto& f : b.extra) f.resize(n);
}

// Keeps the bodies in `order` (indices into b), in that order.
template <class T>
void permute(OwnedBodies<T>& b, const std::vector<std::size_t>& order) {
  auto take = [&](auto& v) {
    using V = std::decay_t<decltype(v)>;
    V out(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) out[k] = v[order[k]];
    v = std::move(out);
  };
  if (b.p.component.size() != b.p.size()) b.p.component.assign(b.p.size(), 0);
  if (b.work.size() != b.p.size()) b.work.assign(b.p.size(), 1);
  take(b.p.x), take(b.p.y), take(b.p.z), take(b.p.vx), take(b.p.vy), take(b.p.vz), take(b.p.m), take(b.p.id);
  take(b.p.component), take(b.work);
  for (auto& f : b.extra) take(f);
}

void check_id(std::uint64_t id, std::int64_t n) {
  if (id >= std::uint64_t(n)) {
    throw_input_error("body id " + std::to_string(id) + " is not below the run's " + std::to_string(n) +
                      " bodies: bodies owned by ranks need the ids 0..n-1");
  }
}

}  // namespace

template <class T>
SfcPoint curve_point(const OwnedBodies<T>& b, const SfcDomain& d, std::size_t i) {
  return {d.box.key(double(b.p.x[i]), double(b.p.y[i]), double(b.p.z[i])), b.p.id[i]};
}

template <class T>
MigrationStats migrate(Communicator& c, OwnedBodies<T>& b, std::span<const int> dest) {
  const int p = c.size(), me = c.rank();
  if (dest.size() != b.size()) {
    throw_runtime_error("migrate: " + std::to_string(dest.size()) + " destinations for " + std::to_string(b.size()) +
                        " bodies");
  }
  const Record<T> rec{b.extra.size()};
  std::vector<std::int64_t> count(std::size_t(p), 0);
  std::vector<std::size_t> keep, leave;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (dest[i] < 0 || dest[i] >= p) throw_runtime_error("migrate: body to rank " + std::to_string(dest[i]));
    if (dest[i] == me) keep.push_back(i);
    else leave.push_back(i), ++count[std::size_t(dest[i])];
  }
  std::stable_sort(leave.begin(), leave.end(), [&](std::size_t a, std::size_t z) { return dest[a] < dest[z]; });
  std::vector<char> out(leave.size() * rec.bytes());
  for (std::size_t k = 0; k < leave.size(); ++k) rec.pack(b, leave[k], out.data() + k * rec.bytes());
  std::vector<std::int64_t> bytes(count);
  for (auto& v : bytes) v *= std::int64_t(rec.bytes());
  std::vector<std::int64_t> got;
  const auto in = c.alltoallv<char>(out, bytes, &got);
  MigrationStats s;
  s.sent = std::int64_t(leave.size());
  s.bytes_sent = std::int64_t(out.size());
  permute(b, keep);
  const std::size_t arrived = in.size() / rec.bytes(), at = b.size();
  resize(b, at + arrived);
  for (std::size_t k = 0; k < arrived; ++k) rec.unpack(in.data() + k * rec.bytes(), b, at + k);
  return s;
}

template <class T>
void sort_by_curve(OwnedBodies<T>& b, const SfcDomain& d) {
  std::vector<SfcPoint> pt(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) pt[i] = curve_point(b, d, i);
  std::vector<std::size_t> order(b.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t z) { return pt[a] < pt[z]; });
  permute(b, order);
}

template <class T>
MigrationStats rebalance(Communicator& c, OwnedBodies<T>& b, SfcDomain& domain, double threshold) {
  if (!(threshold >= 1.0)) {
    throw_input_error("rebalance threshold: " + std::to_string(threshold) +
                      " is not a ratio of the largest rank's work to the mean (>= 1)");
  }
  MigrationStats s;
  const bool fresh = domain.ranks() != c.size();
  if (!fresh) {
    // The work each rank would hold with the current ranges.
    std::vector<std::uint64_t> per_rank(std::size_t(c.size()), 0);
    for (std::size_t i = 0; i < b.size(); ++i) {
      per_rank[std::size_t(domain.owner(curve_point(b, domain, i)))] += b.work.empty() ? 1 : std::max<std::uint64_t>(b.work[i], 1);
    }
    const auto total = allreduce_sum_u64(c, per_rank);
    std::uint64_t sum = 0, most = 0;
    for (auto w : total) sum += w, most = std::max(most, w);
    s.imbalance_before = sum == 0 ? 1.0 : double(most) * c.size() / double(sum);
  }
  if (fresh || s.imbalance_before > threshold) {
    std::vector<double> x(b.size()), y(b.size()), z(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) x[i] = b.p.x[i], y[i] = b.p.y[i], z[i] = b.p.z[i];
    const auto box = global_key_box(c, x, y, z);
    std::vector<std::uint64_t> keys(b.size()), work(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) {
      keys[i] = box.key(x[i], y[i], z[i]);
      work[i] = b.work.empty() ? 1 : b.work[i];
    }
    domain = decompose(c, keys, b.p.id, work, box);
    s.redecomposed = true;
  }
  std::vector<int> dest(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) dest[i] = domain.owner(curve_point(b, domain, i));
  const MigrationStats m = migrate(c, b, dest);
  s.sent = m.sent;
  s.bytes_sent = m.bytes_sent;
  sort_by_curve(b, domain);
  s.imbalance_after = measure_balance(c, b.work).imbalance;
  return s;
}

Block id_block(std::int64_t n, int ranks, int rank, std::int64_t align) {
  const std::int64_t tiles = (n + align - 1) / align;
  const Block t = block_of(tiles, ranks, rank);
  const std::int64_t first = std::min(n, t.first * align);
  return {first, std::min(n, (t.first + t.count) * align) - first};
}

template <class T>
std::vector<std::vector<T>> to_id_block(Communicator& c, std::int64_t n, std::span<const std::uint64_t> ids,
                                        std::span<const std::span<const T>> fields, std::int64_t align) {
  const int p = c.size();
  const std::size_t nf = fields.size(), count = ids.size();
  // The owner of each id block, by the id's tile.
  std::vector<int> dest(count);
  std::vector<std::int64_t> per(std::size_t(p), 0);
  std::vector<Block> blocks(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) blocks[std::size_t(r)] = id_block(n, p, r, align);
  for (std::size_t i = 0; i < count; ++i) {
    check_id(ids[i], n);
    const std::int64_t id = std::int64_t(ids[i]);
    int r = int(std::upper_bound(blocks.begin(), blocks.end(), id, [](std::int64_t v, const Block& b) {
              return v < b.first + b.count;
            }) - blocks.begin());
    dest[i] = r;
    ++per[std::size_t(r)];
  }
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t z) { return dest[a] < dest[z]; });
  std::vector<std::uint64_t> out_ids(count);
  std::vector<T> out_vals(count * nf);
  for (std::size_t k = 0; k < count; ++k) {
    out_ids[k] = ids[order[k]];
    for (std::size_t f = 0; f < nf; ++f) out_vals[k * nf + f] = fields[f][order[k]];
  }
  const auto in_ids = c.alltoallv<std::uint64_t>(out_ids, per);
  std::vector<std::int64_t> per_vals(per);
  for (auto& v : per_vals) v *= std::int64_t(nf);
  const auto in_vals = c.alltoallv<T>(out_vals, per_vals);
  const Block mine = blocks[std::size_t(c.rank())];
  if (std::int64_t(in_ids.size()) != mine.count) {
    throw_runtime_error("to_id_block: " + std::to_string(in_ids.size()) + " bodies for a block of " +
                        std::to_string(mine.count) + " ids (an id missing or held twice)");
  }
  std::vector<std::vector<T>> out(nf, std::vector<T>(std::size_t(mine.count)));
  std::vector<char> seen(std::size_t(mine.count), 0);
  for (std::size_t k = 0; k < in_ids.size(); ++k) {
    const std::size_t at = std::size_t(std::int64_t(in_ids[k]) - mine.first);
    if (seen[at]++) throw_runtime_error("to_id_block: body " + std::to_string(in_ids[k]) + " held twice");
    for (std::size_t f = 0; f < nf; ++f) out[f][at] = in_vals[k * nf + f];
  }
  return out;
}

template <class T>
Particles<T> gather_in_id_order(Communicator& c, const OwnedBodies<T>& b, int root) {
  OwnedBodies<T> copy;
  copy.p = b.p;
  copy.work = b.work;
  copy.n_total = b.n_total;
  const std::vector<int> dest(b.size(), root);
  migrate(c, copy, dest);
  Particles<T> whole;
  if (c.rank() != root) return whole;
  std::vector<std::size_t> order(copy.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t z) { return copy.p.id[a] < copy.p.id[z]; });
  permute(copy, order);
  whole = std::move(copy.p);
  whole.component_names = b.p.component_names;
  return whole;
}

template <class T>
OwnedBodies<T> scatter_id_blocks(Communicator& c, const Particles<T>& whole, int root) {
  const int p = c.size();
  OwnedBodies<T> b;
  b.n_total = c.broadcast_value<std::int64_t>(c.rank() == root ? std::int64_t(whole.size()) : 0, root);
  std::vector<int> dest;
  if (c.rank() == root) {
    b.p = whole;
    b.work.assign(b.size(), 1);
    dest.resize(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) {
      check_id(b.p.id[i], b.n_total);
      const std::int64_t id = std::int64_t(b.p.id[i]);
      int r = 0;
      while (r + 1 < p && block_of(b.n_total, p, r + 1).first <= id) ++r;
      dest[i] = r;
    }
  }
  migrate(c, b, dest);
  std::string names;
  for (const auto& n : whole.component_names) names += n + '\n';
  names = c.broadcast_bytes(c.rank() == root ? names : std::string(), root);
  b.p.component_names.clear();
  for (std::size_t at = 0; at < names.size();) {
    const std::size_t end = names.find('\n', at);
    b.p.component_names.push_back(names.substr(at, end - at));
    at = end + 1;
  }
  return b;
}

#define NBODY_INSTANTIATE(T)                                                                                      \
  template SfcPoint curve_point<T>(const OwnedBodies<T>&, const SfcDomain&, std::size_t);                          \
  template MigrationStats migrate<T>(Communicator&, OwnedBodies<T>&, std::span<const int>);                       \
  template void sort_by_curve<T>(OwnedBodies<T>&, const SfcDomain&);                                               \
  template MigrationStats rebalance<T>(Communicator&, OwnedBodies<T>&, SfcDomain&, double);                       \
  template std::vector<std::vector<T>> to_id_block<T>(Communicator&, std::int64_t, std::span<const std::uint64_t>, \
                                                      std::span<const std::span<const T>>, std::int64_t);          \
  template Particles<T> gather_in_id_order<T>(Communicator&, const OwnedBodies<T>&, int);                          \
  template OwnedBodies<T> scatter_id_blocks<T>(Communicator&, const Particles<T>&, int);
NBODY_INSTANTIATE(float)
NBODY_INSTANTIATE(double)
#undef NBODY_INSTANTIATE

}  // namespace nbody::comm
