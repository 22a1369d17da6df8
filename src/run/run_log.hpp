#pragma once
// A run's messages: to the caller's logger (the program prints them; a binding logs them) and,
// when the run has a directory, into its run.log.
#include <functional>
#include <string_view>
#include <utility>

#include "nbody/run.hpp"

namespace nbody::runloop {

class RunLog final : public Logger {
 public:
  using Record = std::function<void(std::string_view)>;  // a line into run.log
  RunLog(Logger* caller, Record record) : caller_(caller), record_(std::move(record)) {}
  void info(std::string_view line) override {
    if (caller_ != nullptr) caller_->info(line);
    if (record_) record_(line);
  }
  void detail(std::string_view line) override {
    if (caller_ != nullptr) caller_->detail(line);
    if (record_) record_(line);
  }
  void heartbeat(std::string_view line) override {
    if (caller_ != nullptr) caller_->heartbeat(line);
    if (record_) record_(line);
  }

 private:
  Logger* caller_;
  Record record_;
};

}  // namespace nbody::runloop
