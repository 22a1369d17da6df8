#include "run/frame_output.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "nbody/error.hpp"
#include "render/frame.hpp"
#include "render/projection.hpp"

namespace nbody::runloop {

std::size_t FrameWriter::default_workers() {
  const unsigned hw = std::thread::hardware_concurrency();  // 0: unknown
  return std::clamp<std::size_t>(hw > 1 ? hw - 1 : 1, 1, 8);
}

FrameWriter::FrameWriter(std::size_t workers, std::size_t capacity) {
  if (workers == 0) workers = default_workers();
  capacity_ = capacity == 0 ? 2 * workers : capacity;
  threads_.reserve(workers);
  try {
    for (std::size_t k = 0; k < workers; ++k) threads_.emplace_back([this] { work(); });
  } catch (...) {
    stop_and_join();
    throw;
  }
}

FrameWriter::~FrameWriter() { stop_and_join(); }

// The workers finish the jobs waiting, then end.
void FrameWriter::stop_and_join() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void FrameWriter::rethrow_locked(std::unique_lock<std::mutex>& lock) {
  if (!error_) return;
  std::exception_ptr e = std::exchange(error_, nullptr);
  lock.unlock();
  std::rethrow_exception(e);
}

void FrameWriter::push(std::function<void()> job) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return jobs_.size() < capacity_ || error_; });
  rethrow_locked(lock);
  jobs_.push_back(std::move(job));
  lock.unlock();
  changed_.notify_all();
}

void FrameWriter::flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return (jobs_.empty() && busy_ == 0) || error_; });
  rethrow_locked(lock);
}

void FrameWriter::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping with nothing left
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    ++busy_;
    lock.unlock();
    std::exception_ptr failed;
    try {
      job();
    } catch (...) {
      failed = std::current_exception();
    }
    job = nullptr;  // the job's data (a map of the frame) freed outside the lock
    lock.lock();
    --busy_;
    if (failed) {
      if (!error_) error_ = failed;
      jobs_.clear();
    }
    changed_.notify_all();
  }
}

FrameOutput::FrameOutput(FrameSettings settings)
    : settings_(std::move(settings)), writer_(std::make_unique<FrameWriter>(settings_.workers)) {
  if (settings_.every <= 0) throw_input_error("--render-every: " + std::to_string(settings_.every) + " is not > 0");
}

void FrameOutput::write(RunState& state) {
  std::error_code ec;
  std::filesystem::create_directories(settings_.directory, ec);
  if (ec) throw_runtime_error("frames: cannot create '" + settings_.directory.string() + "': " + ec.message());
  if (settings_.auto_width) {
    const Particles<double>& p = state.particles();
    settings_.camera.width = render::auto_width<double>(p.x, p.y, p.z, p.m, settings_.camera.centre);
    settings_.auto_width = false;
  }
  Simulation& sim = state.simulation();
  // The components drawn, checked against the bodies' names before anything of the frames is kept.
  if (frames_ == 0)
    settings_.camera.shown = render::component_mask(settings_.components, sim.component_names(), "--render-components");
  if (frames_ == 0 && settings_.resolved) settings_.resolved(settings_.camera);
  // Coloured by component where the bodies have two components or more (the model's: a galaxy's
  // disk, bulge and halo). On a GPU the map is projected and shaded there (3 bytes a pixel come
  // back); on the host the worker shades it.
  const bool by_component = sim.component_names().size() > 1;
  std::optional<render::ShadedMap> shaded =
      sim.project_shaded(settings_.camera, settings_.nx, settings_.ny, render::shade_spec(settings_.style, by_component));
  render::DensityMap map;
  if (!shaded)
    map = by_component ? sim.project_components(settings_.camera, settings_.nx, settings_.ny)
                       : sim.project(settings_.camera, settings_.nx, settings_.ny);
  render::FrameLabels labels;
  const RunConfig& cfg = state.config();
  labels.title = cfg.ic + ", " + std::to_string(sim.size()) + " bodies";
  labels.step = state.step();
  labels.time = state.time();
  labels.units = cfg.units;
  if (by_component) labels.components = render::shown_names(settings_.camera, sim.component_names());
  labels.camera = settings_.camera.projection == render::Projection::perspective ? "perspective" : "orthographic";
  const std::filesystem::path path = settings_.directory / render::frame_file_name(state.step());
  if (shaded) {
    writer_->push([shaded = std::move(*shaded), labels = std::move(labels), path, style = settings_.style] {
      render::write_frame(path, shaded, style, labels);
    });
  } else {
    writer_->push([map = std::move(map), labels = std::move(labels), path, style = settings_.style] {
      render::write_frame(path, map, style, labels);
    });
  }
  ++frames_;
}

void FrameOutput::finish(RunState&, RunEnd) { writer_->flush(); }

void FrameOutput::record_progress(RunProgress&) const { writer_->flush(); }

}  // namespace nbody::runloop
