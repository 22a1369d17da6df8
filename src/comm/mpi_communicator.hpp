#pragma once
// MPI for the engine: the session (MPI_Init_thread / MPI_Finalize as an RAII object), a
// communicator on MPI_COMM_WORLD, and how a failing rank ends the run. No MPI types here: only
// comm/mpi_communicator.cpp includes <mpi.h>. Built with NBODY_ENABLE_MPI (NBODY_HAVE_MPI=1); without it
// the functions say so.
#include <memory>
#include <string>

#include "comm/communicator.hpp"

namespace nbody::comm {

// Whether this build has MPI.
[[nodiscard]] bool mpi_available() noexcept;

// Whether the process was started by an MPI launcher (mpirun, mpiexec, srun): one of the
// variables they set (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK, PMI_SIZE) is present. `size`
// gets the number of processes the launcher says it started, 0 when it does not say.
[[nodiscard]] bool launched_by_mpi(int* size = nullptr) noexcept;

// MPI from MPI_Init_thread (MPI_THREAD_FUNNELED: OpenMP threads never call MPI) to
// MPI_Finalize, with the world communicator (a duplicate of MPI_COMM_WORLD, errors returned
// rather than fatal, so each is checked and reported) installed as comm::world() meanwhile.
// One per process. Throws a runtime error when MPI cannot start or this build has no MPI.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  [[nodiscard]] Communicator& world() noexcept { return *world_; }
  [[nodiscard]] std::shared_ptr<Communicator> world_shared() const { return world_; }

 private:
  std::shared_ptr<Communicator> world_;
  std::unique_ptr<WorldScope> scope_;
};

// Ends every process of the run with `status` (MPI_Abort) when MPI is running with more than one
// process; returns otherwise (the caller then exits as one process does). For a rank that failed:
// the others may be waiting in a collective and would never return.
void abort_all(int status) noexcept;

}  // namespace nbody::comm
