#pragma once
// A simulation: initial conditions on a backend, advanced by an integrator. The precision is a
// run-time choice; this interface hides it.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nbody/camera.hpp"
#include "nbody/checkpoint.hpp"
#include "nbody/config.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/particles.hpp"

namespace nbody {

class Logger;

class Simulation {
 public:
  virtual ~Simulation() = default;

  // Validates cfg, draws the initial conditions and places them on the backend. Throws an input
  // error for a bad configuration or a request that does not fit in memory. A set-up long
  // enough to be waited for (a million bodies) says what it is doing to setup_log, if given.
  [[nodiscard]] static std::unique_ptr<Simulation> create(const RunConfig& cfg, Logger* setup_log = nullptr);
  // The same, from given particles (cfg.ic and cfg.n are ignored; n is the particles' count).
  [[nodiscard]] static std::unique_ptr<Simulation> create(const RunConfig& cfg, const Particles<double>& initial);
  // Continues from a checkpoint: the state uploaded with its exact bits, the step count and
  // time restored, the integrator given back its state. Advancing it gives the same bits as
  // the run that wrote the checkpoint would have (same backend, deterministic kernels).
  // ck.config may differ from the stored one in run length and output cadence only.
  [[nodiscard]] static std::unique_ptr<Simulation> create_from_checkpoint(const Checkpoint& ck);

  // The configuration in use: n the particles' count, gravitational_constant resolved (0 in the
  // given configuration is the unit system's G; see core/units.hpp).
  [[nodiscard]] virtual const RunConfig& config() const = 0;
  [[nodiscard]] virtual std::string backend_name() const = 0;  // resolved: never "auto"
  [[nodiscard]] virtual std::string device_name() const = 0;
  [[nodiscard]] virtual std::size_t size() const = 0;
  [[nodiscard]] virtual std::int64_t step_count() const = 0;
  [[nodiscard]] virtual double time() const = 0;
  // Target-source pairs the force passes have evaluated so far (adaptive and block steps vary
  // what a step costs; this counts what was done).
  [[nodiscard]] virtual std::uint64_t interactions() const = 0;
  // What the Hermite block steps did so far (zero for the other integrators and step modes).
  struct BlockStepCounts {
    std::uint64_t block_steps = 0;   // block steps
    std::uint64_t active = 0;        // their active bodies, summed
    std::uint64_t device_loops = 0;  // intervals whose block steps ran as one loop on the device
  };
  [[nodiscard]] virtual BlockStepCounts block_step_counts() const { return {}; }

  // Advances by `count` steps of cfg.dt.
  virtual void advance(std::int64_t count) = 0;
  // Energies, momenta, centre of mass, virial ratio of the current state (computed where the
  // particles live; the trajectory is not affected).
  [[nodiscard]] virtual Diagnostics diagnostics() = 0;
  // The current state, copied to the host as float64 (exact for either precision), with the
  // bodies' components and their names.
  [[nodiscard]] virtual Particles<double> particles() = 0;
  // The names of the bodies' components (Particles::component_names); empty: one unnamed one.
  [[nodiscard]] virtual const std::vector<std::string>& component_names() const = 0;
  // The accelerations of the current state from the run's solver, body by body in particles()'
  // order (those the integrator holds when they are current, else a pass that leaves the
  // integrator's alone), and the potentials (G included, each body's own term left out; the
  // tree computes them, the direct sums do not: a runtime error). For --snapshot-fields.
  [[nodiscard]] virtual Accelerations<double> accelerations();
  [[nodiscard]] virtual std::vector<double> potentials();
  // The mass the camera sees on nx x ny pixels (nbody/camera.hpp), projected where the bodies
  // live: on a GPU by a kernel over the device store (no body copied to the host; the float image
  // copied back; render/splat_gpu.hpp states its agreement with the float64 CPU map), on the host
  // from the store in float64. `components`: empty (one colour map), or one per body in
  // particles()' order (colour by component). The trajectory is not affected. Input error for a
  // bad camera, size or components' length.
  [[nodiscard]] virtual render::DensityMap project(const render::Camera& camera, int nx, int ny,
                                                   std::span<const std::uint8_t> components = {});
  // The same, coloured by the bodies' own components (Particles::component), read where the
  // bodies live: on a GPU from the device store's component field (nothing downloaded).
  [[nodiscard]] virtual render::DensityMap project_components(const render::Camera& camera, int nx, int ny);
  // The map shaded where the bodies live, when they live on a GPU: projected and shaded there
  // (render/splat_gpu.hpp; by the bodies' components when spec.by_component), 3 bytes a pixel
  // copied back. None where the bodies are on the host: the caller shades the map of project()
  // (render/shade.hpp) where it likes, e.g. on a worker thread.
  [[nodiscard]] virtual std::optional<render::ShadedMap> project_shaded(const render::Camera& camera, int nx, int ny,
                                                                        const render::ShadeSpec& spec);
  // The whole state for a checkpoint (copied to the host; ck.progress left empty).
  [[nodiscard]] virtual Checkpoint checkpoint() = 0;
  // Waits for queued device work (for timing).
  virtual void synchronize() = 0;
};

}  // namespace nbody
