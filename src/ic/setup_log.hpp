#pragma once
// What a long set-up is doing, said while it does it: a line to the run's logger as a phase
// starts ("set-up: drawing galaxy 1 of 2: 5000000 bodies (disk 750000, bulge 250000, halo
// 4000000) ...") and one with its time as it ends ("set-up: drawing galaxy 1 of 2: 3.2 s").
// Only phases over at least kSetupReportBodies bodies speak (about a second of work on two
// cores and more); smaller set-ups, and those without a logger, stay silent.
#include <chrono>
#include <cstddef>
#include <string>

namespace nbody {
class Logger;
}

namespace nbody::ic {

inline constexpr std::size_t kSetupReportBodies = 500000;

class SetupPhase {
 public:
  // `what` names the phase; it is said only when log is set and bodies >= kSetupReportBodies.
  SetupPhase(Logger* log, std::size_t bodies, std::string what);
  ~SetupPhase();  // the closing line with the phase's wall time (none when unwinding an error)
  SetupPhase(const SetupPhase&) = delete;
  SetupPhase& operator=(const SetupPhase&) = delete;

 private:
  Logger* log_;
  std::string what_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace nbody::ic
