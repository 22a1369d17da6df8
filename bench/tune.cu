#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "gravity/direct/cuda/cuda_direct_solver.hpp"
#include "gravity/direct/cuda/direct_launch.cuh"
#include "ic/ic.hpp"
#include "nbody/error.hpp"
#include "sim/documents_program.hpp"
#include "report.hpp"
#include "tune.hpp"
#include "verify.hpp"

namespace nbody::bench {
namespace {

using nbody::cuda::DeviceBuffer;
namespace dc = nbody::direct::cuda;

constexpr std::size_t kSampled = 256;

// T: pair arithmetic; Acc: per-body sums (and the output type).
template <class T, class Acc>
class KernelBench {
 public:
  explicit KernelBench(const Particles<double>& bodies) : n_(int(bodies.size())) {
    const Particles<T> p = bodies.as<T>();
    for (auto* b : {&x_, &y_, &z_, &m_}) *b = DeviceBuffer<T>(bodies.size());
    for (auto* b : {&ax_, &ay_, &az_}) *b = DeviceBuffer<Acc>(bodies.size());
    x_.upload(p.x.data(), p.size(), stream_.get());
    y_.upload(p.y.data(), p.size(), stream_.get());
    z_.upload(p.z.data(), p.size(), stream_.get());
    m_.upload(p.m.data(), p.size(), stream_.get());
    stream_.synchronize();
  }

  void launch(const DirectShape& s) {
    const SourceView<T> sources{x_.data(), y_.data(), z_.data(), m_.data(), n_};
    const TargetView<T> targets{x_.data(), y_.data(), z_.data(), n_, 0};
    const dc::StoreAccelerations<Acc, Acc> store{Acc(1), ax_.data(), ay_.data(), az_.data()};
    dc::launch_direct_sum(s, targets, sources, gravity::PlummerPair<T, false>{T(kDocumentsEps2)}, store, split_,
                          stream_.get());
  }

  // Worst ratio of error to the rounding bound over the sampled bodies.
  double check(const SampledForces& ref, double u) {
    std::vector<Acc> ax(n_), ay(n_), az(n_);
    ax_.download(ax.data(), ax.size(), stream_.get());
    ay_.download(ay.data(), ay.size(), stream_.get());
    az_.download(az.data(), az.size(), stream_.get());
    stream_.synchronize();
    double worst = 0;
    for (std::size_t k = 0; k < ref.index.size(); ++k) {
      const std::size_t i = ref.index[k];
      const double e = std::hypot(double(ax[i]) - ref.ax[k], double(ay[i]) - ref.ay[k], double(az[i]) - ref.az[k]);
      const double bound = 4 * u * (10 + std::sqrt(double(n_))) * ref.s[k];
      worst = std::max(worst, std::isfinite(e) ? e / bound : INFINITY);
    }
    return worst;
  }

  // Median seconds of one launch.
  double time(const DirectShape& s, bool quick) {
    nbody::cuda::Event a, b;
    double warm = 0;
    while (warm < (quick ? 0.01 : 0.05)) {
      a.record(stream_.get());
      launch(s);
      b.record(stream_.get());
      warm += b.seconds_since(a);
    }
    std::vector<double> t;
    double spent = 0;
    while (t.size() < 30 && (t.size() < 5 || spent < (quick ? 0.02 : 0.1))) {
      a.record(stream_.get());
      launch(s);
      b.record(stream_.get());
      t.push_back(b.seconds_since(a));
      spent += t.back();
    }
    std::sort(t.begin(), t.end());
    return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
  }

 private:
  int n_;
  nbody::cuda::Stream stream_;
  DeviceBuffer<T> x_, y_, z_, m_;
  DeviceBuffer<Acc> ax_, ay_, az_;
  dc::SplitBuffers<Acc> split_;
};

template <class T, class Acc>
void sweep(KernelArithmetic a, const char* precision, std::int64_t n, const DeviceSlots& slots, const Options& o,
           const std::function<void(Record)>& add) {
  // Masses not all equal, so a kernel that drops them fails the check.
  Particles<double> bodies = make_cube({"cube", n, 42});
  for (std::size_t i = 0; i < bodies.size(); ++i) bodies.m[i] = 0.5 + double(i % 7) / 7.0;
  // The reference sees the positions the kernel computes with.
  const Particles<double> rounded = bodies.as<T>().template as<double>();
  const SampledForces ref = sampled_forces(rounded, std::min<std::size_t>(kSampled, rounded.size()), kDocumentsEps2);
  const double u = sizeof(T) == 4 ? 0x1.0p-24 : 0x1.0p-53;
  KernelBench<T, Acc> kb(bodies);
  const DirectShape policy = choose_shape(n, a, slots);
  std::vector<Record> records;
  const std::int64_t max_blocks = std::int64_t(16) * slots.sm_count * 8;
  for (DirectShape s : compiled_shapes(a)) {
    const std::int64_t groups = (n + s.group() - 1) / s.group();
    for (int slices = 1; slices <= max_slices(n, s); slices *= 2) {
      s.slices = slices;
      // Past a few waves more slices only add partial sums; the policy's pick is always measured.
      if (slices > 1 && groups * slices > max_blocks && !(s == policy)) continue;
      Record r;
      r.suite = "tune";
      r.rung = "direct";
      r.precision = precision;
      r.n = n;
      r.shape = s.text();
      r.policy_choice = s == policy;
      try {
        kb.launch(s);
        const double worst = kb.check(ref, u);
        r.verified = worst <= 1.0;
        char buf[96];
        std::snprintf(buf, sizeof buf, "sampled forces: worst error/bound %.3g", worst);
        r.verification = buf;
        if (!r.verified) {
          r.error = std::string("forces WRONG: ") + buf;
        } else {
          const double t = kb.time(s, o.quick);
          r.steps = 1;
          r.repeats = 1;
          r.median_s = r.mean_s = r.min_s = t;
          r.rate = double(n) * double(n) / t / 1e9;
        }
      } catch (const Error& e) {
        r.error = e.what();
      }
      records.push_back(r);
    }
  }
  std::vector<const Record*> sweep;
  for (const auto& r : records) sweep.push_back(&r);
  const std::string summary = policy_summary(sweep);
  for (auto& r : records) add(r);
  if (!summary.empty()) {
    std::printf("           tune %s N=%lld: %s\n", precision, static_cast<long long>(n), summary.c_str());
  }
}

}  // namespace

void tune(const Options& o, const std::function<void(Record)>& add) {
  nbody::cuda::DeviceInfo dev;
  std::string why;
  if (!nbody::cuda::query_device(0, &dev, &why)) {
    Record r;
    r.suite = "tune";
    r.rung = "direct";
    r.skipped = "skipped: no CUDA device (" + why + ")";
    add(r);
    return;
  }

  std::vector<std::int64_t> sizes = {1024, 4096, 16384, 65536, 262144};
  if (o.quick) sizes = {4096};
  for (const std::int64_t n : sizes) {
    if (n > o.max_n) break;
    sweep<float, float>(KernelArithmetic::fp32, "fp32", n, device_slots(dev), o, add);
    sweep<double, double>(KernelArithmetic::fp64, "fp64", n, device_slots(dev), o, add);
    sweep<float, double>(KernelArithmetic::mixed, "mixed", n, device_slots(dev), o, add);
  }
}

std::vector<ProgramCandidate> program_candidates(const Options& o) {
  nbody::cuda::DeviceInfo dev;
  if (!nbody::cuda::query_device(0, &dev, nullptr)) return {};
  std::vector<std::int64_t> sizes = {1024, 2048, 4096, 8192, 16384};
  if (o.quick) sizes = {4096};
  std::vector<ProgramCandidate> out;
  for (const std::int64_t n : sizes) {
    if (n > o.max_n) break;
    const DirectShape policy = choose_shape(n, KernelArithmetic::fp32, device_slots(dev));
    bool policy_listed = false;
    for (DirectShape s : compiled_shapes(KernelArithmetic::fp32)) {
      if (!s.warps) continue;
      s.slices = 1;
      policy_listed = policy_listed || s == policy;
      out.push_back({n, s.text(), s == policy});
    }
    if (!policy_listed) out.push_back({n, policy.text(), true});
  }
  return out;
}

}  // namespace nbody::bench
