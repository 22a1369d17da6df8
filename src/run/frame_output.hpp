#pragma once
// FrameOutput: a frame of the bodies every K steps (RUN/frames/frame_<step>.png, docs/pictures.md).
// The projection runs where the bodies live (Simulation::project: the GPU splat on a GPU run) at
// the step; drawing the figure and encoding the PNG run on worker threads beside the next steps
// (FrameWriter, a bounded queue; frames are independent files, so any worker may write any
// frame: the bytes are the same), flushed before every checkpoint and at the end, so a checkpoint
// never precedes a frame of an earlier step and a resumed run's frames equal an uninterrupted
// run's. The trajectory is untouched. Built with the renderer only (NBODY_ENABLE_RENDER).
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "nbody/camera.hpp"
#include "nbody/run.hpp"
#include "render/frame.hpp"

namespace nbody::runloop {

// Jobs run on `workers` threads (each job is independent: one file), taken in the order pushed;
// at most `capacity` wait (push blocks beyond that). A job's error comes back from the next push
// or flush (the first one when several failed); waiting jobs are dropped after one failed.
class FrameWriter {
 public:
  // min(hardware threads - 1, 8), at least 1: the stepping thread keeps a core.
  [[nodiscard]] static std::size_t default_workers();
  // workers 0: default_workers(); capacity 0: 2 x workers.
  explicit FrameWriter(std::size_t workers = 0, std::size_t capacity = 0);
  ~FrameWriter();
  FrameWriter(const FrameWriter&) = delete;
  FrameWriter& operator=(const FrameWriter&) = delete;

  void push(std::function<void()> job);
  // Waits until every job pushed so far has run; rethrows the first error.
  void flush();
  [[nodiscard]] std::size_t workers() const noexcept { return threads_.size(); }

 private:
  void work();
  void stop_and_join();
  void rethrow_locked(std::unique_lock<std::mutex>& lock);
  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> jobs_;
  std::size_t busy_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

struct FrameSettings {
  std::int64_t every = 0;           // K > 0
  render::Camera camera;
  bool auto_width = false;          // resolved from the bodies at the first frame
  int nx = 1920, ny = 1080;
  std::string components = "all";   // the components drawn (render::component_mask), resolved at the first frame
  render::FrameStyle style;
  std::size_t workers = 0;          // threads drawing and encoding (0: FrameWriter::default_workers())
  std::filesystem::path directory;  // RUN/frames
  // Told the camera once its width is resolved (before the first frame is queued).
  std::function<void(const render::Camera&)> resolved;
};

class FrameOutput final : public Output {
 public:
  explicit FrameOutput(FrameSettings settings);

  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override {
    return (step / settings_.every + 1) * settings_.every;
  }
  [[nodiscard]] bool due(RunState& state) override { return state.step() % settings_.every == 0; }
  void write(RunState& state) override;
  void finish(RunState& state, RunEnd how) override;
  // A checkpoint is written after the frames of its step and before: they are flushed first.
  void record_progress(RunProgress& progress) const override;

  [[nodiscard]] std::int64_t frames_written() const noexcept { return frames_; }

 private:
  FrameSettings settings_;
  std::unique_ptr<FrameWriter> writer_;
  std::int64_t frames_ = 0;
};

}  // namespace nbody::runloop
