// cpu-serial: the documents' serial program. One thread, an array of {x, y, z, vx, vy, vz}
// structures, bodyForce (v += dt F for every body) then the position update.
#include <chrono>
#include <cmath>

#include "gravity/interaction.hpp"
#include "ladder/documents_body.hpp"
#include "ladder/rung.hpp"
#include "sim/documents_program.hpp"

namespace nbody::bench {
namespace {

template <class T>
class CpuSerial final : public Rung {
 public:
  explicit CpuSerial(std::size_t n) : bodies_(n) {}
  std::string name() const override { return "cpu-serial"; }
  bool on_gpu() const override { return false; }
  std::string shape() const override { return ""; }

  void reset(const Particles<double>& p) override { to_documents_bodies(p, bodies_); }

  double run_timed(int count) override {
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < count; ++s) step();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  Particles<double> state() override { return from_documents_bodies(bodies_); }

 private:
  void step() {
    const T dt = T(kDocumentsDt);
    const gravity::PlummerPair<T, false> pair{T(kDocumentsEps2)};
    const std::size_t n = bodies_.size();
    for (std::size_t i = 0; i < n; ++i) {  // bodyForce
      T fx = 0, fy = 0, fz = 0;
      for (std::size_t j = 0; j < n; ++j) {
        pair.accumulate(bodies_[j].x - bodies_[i].x, bodies_[j].y - bodies_[i].y, bodies_[j].z - bodies_[i].z, T(1),
                        fx, fy, fz);
      }
      bodies_[i].vx += dt * fx;
      bodies_[i].vy += dt * fy;
      bodies_[i].vz += dt * fz;
    }
    for (auto& b : bodies_) {  // integrate position
      b.x += b.vx * dt;
      b.y += b.vy * dt;
      b.z += b.vz * dt;
    }
  }

  std::vector<DocumentsBody<T>> bodies_;
};

}  // namespace

std::unique_ptr<Rung> make_cpu_serial(Precision precision, std::size_t n) {
  if (precision == Precision::fp64) return std::make_unique<CpuSerial<double>>(n);
  return std::make_unique<CpuSerial<float>>(n);
}

}  // namespace nbody::bench
