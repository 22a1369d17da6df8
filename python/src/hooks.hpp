#pragma once
// The run loop's hooks for Python callers (RunHooks, include/nbody/run.hpp). The loop runs with
// the GIL released; each hook takes it for the moment it talks to Python. An exception raised in
// Python (a KeyboardInterrupt from Ctrl-C, an error in a callback) stops the run between chunks
// of steps, cleanly, and is raised again once the loop has returned (PythonHooks::rethrow).
#include <optional>
#include <string>

#include "common.hpp"
#include "nbody/run.hpp"

namespace nbody::py {

class PythonHooks {
 public:
  // log: a callable taking a line (or None: quiet); progress: an object with started(first,
  // last), advanced(step, steps, seconds), ended() (or None); callback: called every `every`
  // steps with `target` (or with a RunState view when target is None), returning False to stop.
  PythonHooks(pb::object log, pb::object progress, pb::object callback, std::int64_t every, pb::object target);
  ~PythonHooks();
  PythonHooks(const PythonHooks&) = delete;
  PythonHooks& operator=(const PythonHooks&) = delete;

  [[nodiscard]] RunHooks& hooks() noexcept { return hooks_; }
  // Raises the exception a hook caught (with the GIL held), if any.
  void rethrow();

  struct Impl;

 private:
  Impl* impl_;
  RunHooks hooks_;
};

}  // namespace nbody::py
