// nbody bench --suite multi-gpu: the direct sum spread over 1..K ranks, one GPU each (run under
// mpirun -np K; every rank takes the GPU of its local rank). For each precision and N the ranks
// 1, 2, 4, ..., K take part in turn (a communicator of the first k ranks), the others wait.
//   strong: N fixed (2^18, or --min-n, .. --max-n), k ranks; speedup and efficiency against one rank.
//   weak:   N = k * N0 (N0 = 2^20, or --max-n / K when smaller); per-rank work grows with k for an
//           O(N^2) sum, so the efficiency is rate_k / (k rate_1).
// Over several ranks the same passes are then measured whole with the pipelined exchange
// (--distribution-exchange pipelined, 4 pieces; the same bits required) beside the gather's.
// A pass is measured as its two parts, on the device's clock (CUDA events; the host clock on a
// CPU): the force kernel on the rank's block of targets, then the gather of every block (NCCL, or
// MPI through the host); the pass is their sum. Medians over the repeats after one warm-up pass,
// the slowest rank's. Every configuration is checked before its time counts: one rank against the
// float64 direct sum on sampled bodies, k ranks bit for bit against one rank.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench.hpp"
#include "measure.hpp"
#include "comm/block_gather.hpp"
#include "comm/communicator.hpp"
#include "core/fnv1a.hpp"
#include "gravity/direct/distributed.hpp"
#include "gravity/names.hpp"
#include "ic/ic.hpp"
#include "integrate/system.hpp"
#include "nbody/error.hpp"
#include "verify.hpp"

namespace nbody::bench {
namespace {

constexpr double kEps = 1.0 / 256;        // softening of the measured passes (Plummer)
constexpr double kMaxPassSeconds = 40.0;  // a pass estimated longer than this is skipped

struct Measured {
  double pass = 0, force = 0, gather = 0, mean = 0, min = 0;
  double pipelined = 0;  // the whole pass with the pipelined exchange (several ranks only)
  bool pipelined_same_bits = false;
  int repeats = 0;
  std::uint64_t hash = 0;  // of the accelerations' bytes
  std::string kernel, check;
  bool verified = false;
};

// One configuration on the ranks of `part` (this rank is one of them).
template <class T>
Measured measure_on(comm::Communicator& world, const std::shared_ptr<comm::Communicator>& part, const std::string& device,
                    Precision p, const Particles<double>& initial, bool quick) {
  SolverRequest req;
  req.choice = {device, "direct"};
  req.precision = p;
  req.n = initial.size();
  req.gravity = {1.0, kEps, SofteningLaw::plummer};
  if (device == "cuda") req.ordinal = comm::device_ordinal_of_rank(world);
  if (part->size() > 1) req.comm = part;
  System<T> sys(req);
  sys.upload(initial.template as<T>());
  auto* spread = dynamic_cast<DistributedSolver<T>*>(&sys.solver());
  const ParticleView<T>& v = sys.view();
  const Vec3Span<T> acc = sys.accelerations();
  auto force = [&] {
    if (spread) {
      spread->local_accelerations(v.targets(), v.sources(), acc);
    } else {
      sys.compute_accelerations();
    }
  };
  auto gather = [&] {
    if (spread) spread->gather(acc, v.n);
  };
  // Warm-up (and the estimate that sets the repeats, the same on every rank of the part).
  const double first = sys.measure_seconds(force) + sys.measure_seconds(gather);
  const double budget = quick ? 0.2 : 3.0;
  const int repeats = part->broadcast_value<std::int32_t>(std::clamp(int(budget / std::max(first, 1e-9)), 3, 15), 0);
  std::vector<double> f(repeats), g(repeats), t(repeats);
  for (int r = 0; r < repeats; ++r) {
    f[r] = sys.measure_seconds(force);
    g[r] = sys.measure_seconds(gather);
    t[r] = f[r] + g[r];
  }
  Measured m;
  m.repeats = repeats;
  // The slowest rank's medians: the pass ends when its last block arrives.
  m.pass = part->allreduce_max(median(t));
  m.force = part->allreduce_max(median(f));
  m.gather = part->allreduce_max(median(g));
  m.min = part->allreduce_max(*std::min_element(t.begin(), t.end()));
  double mean = 0;
  for (double x : t) mean += x / repeats;
  m.mean = part->allreduce_max(mean);
  m.kernel = sys.kernel();
  auto hash_of_accelerations = [&] {
    Accelerations<T> acc_host;
    sys.download_accelerations(acc_host);
    std::string bytes;
    for (const auto* c : {&acc_host.ax, &acc_host.ay, &acc_host.az}) {
      bytes.append(reinterpret_cast<const char*>(c->data()), c->size() * sizeof(T));
    }
    return fnv1a64(bytes);
  };
  m.hash = hash_of_accelerations();
  if (spread) {
    // The same passes with the pipelined exchange: whole passes (force and gather overlap, so
    // they are not measured apart), the same number of repeats after a warm-up, and the bits.
    spread->set_exchange(Exchange::pipelined, kDefaultExchangeChunks);
    auto whole = [&] { sys.compute_accelerations(); };
    (void)sys.measure_seconds(whole);
    std::vector<double> w(repeats);
    for (int r = 0; r < repeats; ++r) w[r] = sys.measure_seconds(whole);
    m.pipelined = part->allreduce_max(median(w));
    m.pipelined_same_bits = part->allreduce_max(hash_of_accelerations() == m.hash ? 0.0 : 1.0) == 0.0;
    spread->set_exchange(Exchange::gather);
  }
  Accelerations<T> a;
  sys.download_accelerations(a);
  if (part->size() == 1) {
    // Against the float64 sum from the same (rounded) positions, on sampled bodies: within
    // 4 u (10 + sqrt N) S_i + 4 u |a_i| (verify.hpp).
    const Particles<double> rounded = initial.template as<T>().template as<double>();
    const SampledForces ref = sampled_forces(rounded, quick ? 32 : 128, kEps * kEps);
    const double u = p == Precision::fp64 ? 0x1p-53 : 0x1p-24;
    double worst = 0;
    for (std::size_t k = 0; k < ref.index.size(); ++k) {
      const std::size_t i = ref.index[k];
      const double dx = a.ax[i] - ref.ax[k], dy = a.ay[i] - ref.ay[k], dz = a.az[i] - ref.az[k];
      const double amag = std::sqrt(ref.ax[k] * ref.ax[k] + ref.ay[k] * ref.ay[k] + ref.az[k] * ref.az[k]);
      const double bound = 4 * u * (10 + std::sqrt(double(initial.size()))) * ref.s[k] + 4 * u * amag;
      worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz) / bound);
    }
    m.verified = worst <= 1;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%zu sampled bodies against float64: worst error %.3g of the rounding bound",
                  ref.index.size(), worst);
    m.check = buf;
  }
  return m;
}

}  // namespace

void multi_gpu(const Options& o, const std::function<void(Record)>& add) {
  comm::Communicator& world = comm::world();
  const int K = world.size();
  const bool root = world.rank() == 0;
  const std::string device = resolve_device("auto");
  std::vector<int> ks;
  for (int k = 1; k < K; k *= 2) ks.push_back(k);
  ks.push_back(K);
  const std::int64_t first_n = o.quick ? 4096 : (o.min_n > 0 ? o.min_n : 262144);
  const std::int64_t last_n = o.quick ? 8192 : o.max_n;
  const std::int64_t weak_n0 = o.quick ? 2048 : std::min<std::int64_t>(1048576, std::max<std::int64_t>(o.max_n / K, 1024));

  struct Config {
    std::string kind;
    std::int64_t n;
    int k;
  };
  std::vector<Config> configs;
  for (std::int64_t n = first_n; n <= last_n; n *= 2) {
    for (int k : ks) configs.push_back({"strong", n, k});
  }
  for (int k : ks) configs.push_back({"weak", weak_n0 * k, k});

  // --precision names some of fp32 and fp64 (the pass's arithmetic: mixed has no multi-GPU pass).
  std::vector<Precision> precisions = {Precision::fp32, Precision::fp64};
  if (o.precisions_named) {
    precisions.clear();
    for (const Precision p : o.precisions)  // (mixed refused with the options)
      if (p != Precision::mixed && std::find(precisions.begin(), precisions.end(), p) == precisions.end())
        precisions.push_back(p);
  }
  for (const Precision p : precisions) {
    std::map<std::int64_t, Measured> one_rank;  // by N: the reference of speedups and bits
    std::map<std::int64_t, Particles<double>> bodies;
    double last_rate = 0;  // pairs per second of the last one-rank pass, for the estimates
    for (const Config& c : configs) {
      Record r;
      r.suite = "multi-gpu";
      r.rung = c.kind + "-" + std::to_string(c.k);
      r.precision = std::string(to_string(p));
      r.n = c.n;
      r.ranks = c.k;
      r.steps = 1;
      const double estimate = last_rate > 0 ? double(c.n) * double(c.n) / last_rate / c.k : 0;
      if (estimate > kMaxPassSeconds) {
        r.skipped = "skipped: a pass would take about " + std::to_string(int(estimate)) + " s";
        if (root) add(r);
        continue;
      }
      if (!bodies.count(c.n)) {
        RunConfig model;
        bodies[c.n] = make_initial_conditions({"plummer", c.n, 20260101, model});
      }
      auto part = world.split(world.rank() < c.k);
      Measured m;
      if (part) {
        // An error here ends every rank (the program's handler aborts the run): a rank left
        // behind in a collective would wait forever.
        m = p == Precision::fp32 ? measure_on<float>(world, part, device, p, bodies[c.n], o.quick)
                                 : measure_on<double>(world, part, device, p, bodies[c.n], o.quick);
      }
      // The one-rank bits and time (rank 0's) reach every rank: later parts compare with them and
      // every rank must make the same skip decisions.
      if (c.k == 1) {
        m.hash = world.broadcast_value<std::uint64_t>(m.hash, 0);
        m.pass = world.broadcast_value<double>(m.pass, 0);
        m.verified = world.broadcast_value<std::int32_t>(m.verified ? 1 : 0, 0) != 0;
        one_rank[c.n] = m;
        last_rate = double(c.n) * double(c.n) / m.pass;
      }
      world.barrier();
      if (!root) continue;
      r.shape = m.kernel;
      r.repeats = m.repeats;
      r.median_s = m.pass;
      r.mean_s = m.mean;
      r.min_s = m.min;
      r.force_s = m.force;
      r.comm_s = m.gather;
      if (m.pipelined > 0) {
        r.pipelined_s = m.pipelined;
        r.pipelined_chunks = kDefaultExchangeChunks;
        r.pipelined_same_bits = m.pipelined_same_bits;
        if (!m.pipelined_same_bits) r.error = "forces WRONG: the pipelined exchange changed the bits";
      }
      r.rate = double(c.n) * double(c.n) / m.pass / 1e9;
      if (c.k == 1) {
        r.verified = m.verified;
        r.verification = m.check;
        if (!m.verified) r.error = "forces WRONG: " + m.check;
      } else if (const auto it = one_rank.find(c.n); it != one_rank.end()) {
        // The same bits as one rank verify only where one rank's passed its float64 check.
        const bool same = m.hash == it->second.hash;
        r.verified = same && it->second.verified;
        r.verification = !same ? "accelerations differ from one rank"
                         : r.verified ? "accelerations bit-identical to one rank"
                                      : "accelerations bit-identical to one rank, whose check against float64 failed";
        if (!same) r.error = "forces WRONG: not the bits of one rank";
        else if (!r.verified) r.error = "forces WRONG: the bits of one rank, which failed its check against float64";
        r.speedup_vs_one_rank = it->second.pass / m.pass;
        r.efficiency = r.speedup_vs_one_rank / c.k;
      } else {
        r.verification = "no one-rank pass at this N to compare with";
      }
      if (c.kind == "weak" && c.k > 1) {
        // Against the one-rank weak configuration (N0): the rate per rank kept.
        for (const auto& [n, one] : one_rank) {
          if (n == weak_n0) r.efficiency = r.rate / (double(n) * double(n) / one.pass / 1e9) / c.k;
        }
        r.speedup_vs_one_rank = 0;
      }
      add(r);
    }
  }
}

}  // namespace nbody::bench
