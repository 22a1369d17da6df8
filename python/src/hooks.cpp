#include "hooks.hpp"

#include "converters.hpp"
#include "nbody/error.hpp"

#include <memory>
#include <optional>

namespace nbody::py {

// The RunState a callback sees while it runs (the loop's; invalid once the callback returns).
class RunStateView {
 public:
  explicit RunStateView(RunState* s) : state_(s) {}
  RunState& get() {
    if (state_ == nullptr) throw_input_error("run state: valid only inside the callback it was given to");
    return *state_;
  }
  void clear() { state_ = nullptr; }

 private:
  RunState* state_;
};

struct PythonHooks::Impl {
  // The first exception a hook caught, kept until the loop returns.
  std::optional<pb::error_already_set> error;
  bool callback_stop = false;

  // Runs `f` with the GIL; an exception it raises is kept and stops the run.
  template <class F>
  void guarded(F&& f) {
    pb::gil_scoped_acquire gil;
    if (error) return;
    try {
      f();
    } catch (pb::error_already_set& e) {
      error.emplace(std::move(e));
    }
  }

  class Log final : public Logger {
   public:
    Log(Impl& impl, pb::object fn) : impl_(impl), fn_(std::move(fn)) {}
    void info(std::string_view line) override {
      impl_.guarded([&] { fn_(pb::str(line.data(), line.size())); });
    }

   private:
    Impl& impl_;
    pb::object fn_;
  };

  // Ctrl-C: Python's SIGINT handler only sets a flag while C++ runs; PyErr_CheckSignals (with the
  // GIL) runs the handler, which raises KeyboardInterrupt.
  class Signals final : public StopCondition {
   public:
    explicit Signals(Impl& impl) : impl_(impl) {}
    std::optional<std::string> requested() override {
      pb::gil_scoped_acquire gil;
      if (!impl_.error && PyErr_CheckSignals() != 0) impl_.error.emplace();
      if (impl_.error) return impl_.error->matches(PyExc_KeyboardInterrupt) ? "KeyboardInterrupt" : "a Python exception";
      if (impl_.callback_stop) return "the callback";
      return std::nullopt;
    }

   private:
    Impl& impl_;
  };

  class Progress final : public ProgressObserver {
   public:
    Progress(Impl& impl, pb::object obj) : impl_(impl), obj_(std::move(obj)) {}
    void started(std::int64_t first, std::int64_t last) override {
      impl_.guarded([&] { obj_.attr("started")(first, last); });
    }
    void advanced(std::int64_t step, std::int64_t steps, double seconds) override {
      impl_.guarded([&] { obj_.attr("advanced")(step, steps, seconds); });
    }
    void ended() override {
      impl_.guarded([&] { obj_.attr("ended")(); });
    }

   private:
    Impl& impl_;
    pb::object obj_;
  };

  // The callback every K steps, as an output of the run loop (chunks end at its steps).
  class Callback final : public Output {
   public:
    Callback(Impl& impl, pb::object fn, std::int64_t every, pb::object target)
        : impl_(impl), fn_(std::move(fn)), every_(every), target_(std::move(target)) {}
    std::int64_t next_step_due(std::int64_t step) const override { return (step / every_ + 1) * every_; }
    bool due(RunState& state) override { return state.step() % every_ == 0; }
    void write(RunState& state) override {
      impl_.guarded([&] {
        pb::object result;
        if (target_.is_none()) {
          auto view = std::make_shared<RunStateView>(&state);
          pb::object arg = pb::cast(view);
          try {
            result = fn_(arg);
          } catch (...) {
            view->clear();
            throw;
          }
          view->clear();
        } else {
          result = fn_(target_);
        }
        if (result.is(pb::bool_(false))) impl_.callback_stop = true;
      });
    }

   private:
    Impl& impl_;
    pb::object fn_;
    std::int64_t every_;
    pb::object target_;
  };

  std::optional<Log> log;
  std::optional<Signals> signals;
  std::optional<Progress> progress;
  std::optional<Callback> callback;
};

PythonHooks::PythonHooks(pb::object log, pb::object progress, pb::object callback, std::int64_t every,
                         pb::object target)
    : impl_(new Impl) {
  if (!log.is_none()) hooks_.logger = &impl_->log.emplace(*impl_, std::move(log));
  hooks_.stop_conditions.push_back(&impl_->signals.emplace(*impl_));
  if (!progress.is_none()) hooks_.progress = &impl_->progress.emplace(*impl_, std::move(progress));
  if (!callback.is_none()) {
    if (every < 1) throw_input_error("every: must be >= 1 (got " + std::to_string(every) + ")");
    hooks_.outputs.push_back(&impl_->callback.emplace(*impl_, std::move(callback), every, std::move(target)));
  }
}

PythonHooks::~PythonHooks() { delete impl_; }

void PythonHooks::rethrow() {
  if (impl_->error) {
    pb::error_already_set e = std::move(*impl_->error);
    impl_->error.reset();
    throw e;
  }
}

void bind_run_state(pb::module_& m) {
  pb::class_<RunStateView, std::shared_ptr<RunStateView>>(
      m, "RunState", "The run at a callback's step (valid only inside the callback): step, t, diagnostics(), particles().")
      .def_property_readonly("step", [](RunStateView& v) { return v.get().step(); })
      .def_property_readonly("t", [](RunStateView& v) { return v.get().time(); })
      .def("diagnostics",
           [](RunStateView& v) {
             const Diagnostics d = v.get().diagnostics();
             return diagnostics_to_dict(d, v.get().initial_diagnostics());
           })
      .def("particles", [](RunStateView& v) { return particles_to_dict(v.get().particles()); },
           "float64 copies of the particles: {x, y, z, vx, vy, vz, m, id}.");
}

}  // namespace nbody::py
