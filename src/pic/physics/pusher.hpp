#pragma once
// Relativistic particle pushers (normalised units: c = 1, u = gamma v, q/m in e/m_e). Each takes
// the momentum u^{n-1/2}, the fields E, B at the particle at time n, and alpha = (q/m) dt / 2,
// and returns u^{n+1/2}.
#include <cmath>

#include "core/hd.hpp"

namespace nbody::pic {

enum class PusherKind { boris, vay, higuera_cary };

struct Vec3d {
  double x = 0, y = 0, z = 0;
};

PIC_HD Vec3d cross(const Vec3d& a, const Vec3d& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
PIC_HD double dot(const Vec3d& a, const Vec3d& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
PIC_HD Vec3d axpy(double a, const Vec3d& x, const Vec3d& y) {
  return {a * x.x + y.x, a * x.y + y.y, a * x.z + y.z};
}
PIC_HD double lorentz_gamma(const Vec3d& u) { return std::sqrt(1.0 + dot(u, u)); }

// Boris (1970): half electric kick, magnetic rotation, half electric kick.
struct BorisPush {
  PIC_HD static Vec3d push(Vec3d u, const Vec3d& E, const Vec3d& B, double alpha) {
    const Vec3d um = axpy(alpha, E, u);
    const double inv_g = 1.0 / lorentz_gamma(um);
    const Vec3d t{alpha * B.x * inv_g, alpha * B.y * inv_g, alpha * B.z * inv_g};
    const double s = 2.0 / (1.0 + dot(t, t));
    const Vec3d up = axpy(1.0, cross(um, t), um);
    const Vec3d sv{s * t.x, s * t.y, s * t.z};
    const Vec3d uplus = axpy(1.0, cross(up, sv), um);
    return axpy(alpha, E, uplus);
  }
};

// The new gamma for the Vay and Higuera-Cary pushers: from gamma'^2 = 1 + u'^2, tau = alpha B,
// u* = u'.tau: gamma^2 = (sigma + sqrt(sigma^2 + 4 (tau^2 + u*^2))) / 2, sigma = gamma'^2 - tau^2.
PIC_HD double implicit_gamma(const Vec3d& up, const Vec3d& tau) {
  const double tau2 = dot(tau, tau);
  const double ustar = dot(up, tau);
  const double sigma = 1.0 + dot(up, up) - tau2;
  return std::sqrt(0.5 * (sigma + std::sqrt(sigma * sigma + 4.0 * (tau2 + ustar * ustar))));
}

// Vay (2008): the E + v x B force without a spurious force for E + v x B = 0.
struct VayPush {
  PIC_HD static Vec3d push(Vec3d u, const Vec3d& E, const Vec3d& B, double alpha) {
    const double inv_g0 = 1.0 / lorentz_gamma(u);
    const Vec3d v{u.x * inv_g0, u.y * inv_g0, u.z * inv_g0};
    const Vec3d vxb = cross(v, B);
    const Vec3d up{u.x + 2 * alpha * E.x + alpha * vxb.x, u.y + 2 * alpha * E.y + alpha * vxb.y,
                   u.z + 2 * alpha * E.z + alpha * vxb.z};
    const Vec3d tau{alpha * B.x, alpha * B.y, alpha * B.z};
    const double g = implicit_gamma(up, tau);
    const Vec3d t{tau.x / g, tau.y / g, tau.z / g};
    const double s = 1.0 / (1.0 + dot(t, t));
    const double ut = dot(up, t);
    const Vec3d c = cross(up, t);
    return {s * (up.x + ut * t.x + c.x), s * (up.y + ut * t.y + c.y), s * (up.z + ut * t.z + c.z)};
  }
};

// Higuera & Cary (2017): volume preserving and with the correct E x B drift.
struct HigueraCaryPush {
  PIC_HD static Vec3d push(Vec3d u, const Vec3d& E, const Vec3d& B, double alpha) {
    const Vec3d um = axpy(alpha, E, u);
    const Vec3d tau{alpha * B.x, alpha * B.y, alpha * B.z};
    const double g = implicit_gamma(um, tau);
    const Vec3d t{tau.x / g, tau.y / g, tau.z / g};
    const double s = 1.0 / (1.0 + dot(t, t));
    const double ut = dot(um, t);
    const Vec3d c = cross(um, t);
    const Vec3d uplus{s * (um.x + ut * t.x + c.x), s * (um.y + ut * t.y + c.y), s * (um.z + ut * t.z + c.z)};
    const Vec3d c2 = cross(uplus, t);
    return {uplus.x + alpha * E.x + c2.x, uplus.y + alpha * E.y + c2.y, uplus.z + alpha * E.z + c2.z};
  }
};

PIC_HD Vec3d push_momentum(PusherKind kind, const Vec3d& u, const Vec3d& E, const Vec3d& B, double alpha) {
  switch (kind) {
    case PusherKind::vay: return VayPush::push(u, E, B, alpha);
    case PusherKind::higuera_cary: return HigueraCaryPush::push(u, E, B, alpha);
    default: return BorisPush::push(u, E, B, alpha);
  }
}

}  // namespace nbody::pic
