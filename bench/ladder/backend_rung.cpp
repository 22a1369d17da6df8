// cpu and gpu-best: the production backends (CPU OpenMP + SIMD; the CUDA direct-sum kernel with
// the force pass and the Euler update fused) running the documents' program.
#include <cmath>

#include "integrate/system.hpp"
#include "ladder/rung.hpp"
#include "nbody/error.hpp"
#include "sim/documents_program.hpp"

namespace nbody::bench {
namespace {

template <class T>
class BackendRung final : public Rung {
 public:
  BackendRung(std::string rung, const std::string& device, std::size_t n, Precision precision, const std::string& shape)
      : rung_(std::move(rung)), backend_(std::make_unique<System<T>>(request(device, n, precision, shape))) {}

  std::string name() const override { return rung_; }
  bool on_gpu() const override { return backend_->choice().device == "cuda"; }
  std::string shape() const override { return on_gpu() ? backend_->kernel() : ""; }

  void reset(const Particles<double>& p) override {
    Particles<double> unit = p;
    for (auto& m : unit.m) m = 1.0;  // the documents' bodies have unit mass
    backend_->upload(unit.as<T>());
  }

  double run_timed(int count) override {
    return backend_->measure_seconds([&] { backend_->euler_steps(kDocumentsDt, count); });
  }

  Particles<double> state() override {
    Particles<T> p;
    backend_->download(p);
    return p.template as<double>();
  }

 private:
  static SolverRequest request(const std::string& device, std::size_t n, Precision precision,
                               const std::string& shape) {
    SolverRequest r;
    r.choice = {device, "direct"};
    r.precision = precision;
    r.n = n;
    r.gravity = GravityParams{1.0, std::sqrt(kDocumentsEps2)};
    r.kernel_shape = shape;
    return r;
  }

  std::string rung_;
  std::unique_ptr<System<T>> backend_;
};

}  // namespace

std::unique_ptr<Rung> make_backend_rung(const std::string& rung, const std::string& backend, Precision precision,
                                        std::size_t n, const std::string& kernel_shape) {
  switch (precision) {
    case Precision::fp32: return std::make_unique<BackendRung<float>>(rung, backend, n, precision, kernel_shape);
    case Precision::fp64:
    case Precision::mixed: return std::make_unique<BackendRung<double>>(rung, backend, n, precision, kernel_shape);
  }
  throw_input_error("unknown precision");
}

}  // namespace nbody::bench
