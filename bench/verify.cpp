#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ic/ic.hpp"

namespace nbody::bench {
namespace {

constexpr std::size_t kSampled = 512;

double unit_roundoff(Precision p) { return p == Precision::fp64 ? 0x1.0p-53 : 0x1.0p-24; }

std::string format(const char* fmt, double a, double b) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

}  // namespace

Verifier::Verifier(std::int64_t n, Precision precision) : n_(n), precision_(precision) {
  trajectory_ = n <= kTrajectoryCheckMaxN;
  if (trajectory_) {
    reference_ = documents_reference(n, std::string(to_string(precision)));
    initial_ = reference_.initial;
    return;
  }
  initial_ = make_cube({"cube", n, static_cast<std::uint64_t>(kDocumentsSeed)});
  // The reference sees the positions the rung computes with (rounded to float32 unless fp64).
  Particles<double> unit = precision == Precision::fp64 ? initial_ : initial_.as<float>().as<double>();
  for (auto& m : unit.m) m = 1.0;  // the documents' bodies have unit mass
  sample_ = sampled_forces(unit, std::min<std::size_t>(kSampled, std::size_t(n)), kDocumentsEps2);
}

SampledForces sampled_forces(const Particles<double>& p, std::size_t count, double eps2) {
  SampledForces out;
  out.index.resize(count);
  out.ax.assign(count, 0);
  out.ay.assign(count, 0);
  out.az.assign(count, 0);
  out.s.assign(count, 0);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t k = 0; k < std::int64_t(count); ++k) {
    const std::size_t i = std::size_t(k) * p.size() / count;
    out.index[k] = i;
    double ax = 0, ay = 0, az = 0, s = 0;
    for (std::size_t j = 0; j < p.size(); ++j) {
      if (j == i) continue;
      const double dx = p.x[j] - p.x[i], dy = p.y[j] - p.y[i], dz = p.z[j] - p.z[i];
      const double r2 = dx * dx + dy * dy + dz * dz;
      const double inv = 1.0 / std::sqrt(r2 + eps2);
      const double f = p.m[j] * inv * inv * inv;
      ax += dx * f;
      ay += dy * f;
      az += dz * f;
      s += std::sqrt(r2) * f;
    }
    out.ax[k] = ax;
    out.ay[k] = ay;
    out.az[k] = az;
    out.s[k] = s;
  }
  return out;
}

double Verifier::verify(Rung& rung, Record& record) const {
  rung.reset(initial_);
  if (trajectory_) {
    const double seconds = rung.run_timed(int(kDocumentsSteps));
    const PositionErrors e = position_errors(rung.state(), reference_.final);
    record.verified = e.median_rel <= reference_.tolerance;
    record.verification = format("trajectory: median position error %.3g <= %.3g", e.median_rel, reference_.tolerance);
    if (!record.verified) {
      record.error = format("positions WRONG: median relative position error %.3g > tolerance %.3g", e.median_rel,
                            reference_.tolerance);
    }
    return seconds / double(kDocumentsSteps);
  }
  const double seconds = rung.run_timed(1);
  const Particles<double> after = rung.state();
  const Particles<double> before =
      precision_ == Precision::fp32 ? initial_.as<float>().as<double>() : initial_;
  const double u = unit_roundoff(precision_);
  const double dt = kDocumentsDt;
  double worst = 0;
  for (std::size_t k = 0; k < sample_.index.size(); ++k) {
    const std::size_t i = sample_.index[k];
    const double ex = (after.vx[i] - before.vx[i]) / dt - sample_.ax[k];
    const double ey = (after.vy[i] - before.vy[i]) / dt - sample_.ay[k];
    const double ez = (after.vz[i] - before.vz[i]) / dt - sample_.az[k];
    const double err = std::sqrt(ex * ex + ey * ey + ez * ez);
    const double v0 = std::hypot(before.vx[i], before.vy[i], before.vz[i]);
    const double v1 = std::hypot(after.vx[i], after.vy[i], after.vz[i]);
    const double a = std::hypot(sample_.ax[k], sample_.ay[k], sample_.az[k]);
    const double bound = 4 * u * (10 + std::sqrt(double(n_))) * sample_.s[k] + 2 * u * (v0 + v1) / dt + 2 * u * a;
    const double ratio = std::isfinite(err) ? err / bound : INFINITY;
    worst = std::max(worst, ratio);
  }
  record.verified = worst <= 1.0;
  record.verification = format("sampled forces: %.0f bodies, worst error/bound %.3g", double(sample_.index.size()), worst);
  if (!record.verified) record.error = format("forces WRONG: %.0f sampled bodies, worst error/bound %.3g", double(sample_.index.size()), worst);
  return seconds;
}

}  // namespace nbody::bench
