#pragma once
// The documents' body: an array of {x, y, z, vx, vy, vz} structures (unit masses), and the
// conversions the CPU and GPU rungs share.
#include <cstddef>
#include <vector>

#include "nbody/particles.hpp"

namespace nbody::bench {

template <class T>
struct DocumentsBody {
  T x, y, z, vx, vy, vz;
};

template <class T>
void to_documents_bodies(const Particles<double>& p, std::vector<DocumentsBody<T>>& out) {
  out.resize(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    out[i] = {T(p.x[i]), T(p.y[i]), T(p.z[i]), T(p.vx[i]), T(p.vy[i]), T(p.vz[i])};
  }
}

template <class T>
[[nodiscard]] Particles<double> from_documents_bodies(const std::vector<DocumentsBody<T>>& bodies) {
  Particles<double> p;
  p.resize(bodies.size());
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    p.x[i] = bodies[i].x;
    p.y[i] = bodies[i].y;
    p.z[i] = bodies[i].z;
    p.vx[i] = bodies[i].vx;
    p.vy[i] = bodies[i].vy;
    p.vz[i] = bodies[i].vz;
    p.m[i] = 1.0;
    p.id[i] = i;
  }
  return p;
}

}  // namespace nbody::bench
