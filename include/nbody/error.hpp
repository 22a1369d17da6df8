#pragma once
// One exception type for the whole engine. The kind decides the exit status of the CLI:
// bad input (a wrong value, a malformed file, a request that does not fit) exits 2,
// a failure while running (a CUDA error, a full disk) exits 1.
#include <stdexcept>
#include <string>

namespace nbody {

enum class ErrorKind { input, runtime };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }
  [[nodiscard]] int exit_status() const noexcept { return kind_ == ErrorKind::input ? 2 : 1; }

 private:
  ErrorKind kind_;
};

[[noreturn]] inline void throw_input_error(const std::string& what) {
  throw Error(ErrorKind::input, what);
}
[[noreturn]] inline void throw_runtime_error(const std::string& what) {
  throw Error(ErrorKind::runtime, what);
}

}  // namespace nbody
