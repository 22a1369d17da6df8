#include "comm/mpi_communicator.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nbody/error.hpp"

#if NBODY_HAVE_MPI
#include <mpi.h>
// Open MPI's extensions: MPIX_CUDA_AWARE_SUPPORT (whether the library was built with CUDA) and
// MPIX_Query_cuda_support() (whether it runs with it). MPICH declares MPIX_GPU_query_support in
// mpi.h itself.
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

namespace nbody::comm {

bool mpi_available() noexcept { return NBODY_HAVE_MPI != 0; }

bool launched_by_mpi(int* size) noexcept {
  if (size != nullptr) *size = 0;
  bool found = false;
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"}) {
    if (std::getenv(var) != nullptr) found = true;
  }
  if (size != nullptr) {
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}) {
      if (const char* v = std::getenv(var); v != nullptr && found) {
        *size = std::atoi(v);
        break;
      }
    }
  }
  return found;
}

#if NBODY_HAVE_MPI
namespace {

// Every MPI call goes through this: an error becomes a runtime error naming the call and MPI's text.
void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING + 1] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) std::snprintf(text, sizeof text, "error %d", code);
  throw_runtime_error(std::string("MPI: ") + call + " failed: " + text);
}
#define NBODY_MPI_CHECK(call) check((call), #call)

MPI_Datatype mpi_type(DataType t) {
  switch (t) {
    case DataType::byte: return MPI_BYTE;
    case DataType::i32: return MPI_INT32_T;
    case DataType::i64: return MPI_INT64_T;
    case DataType::u64: return MPI_UINT64_T;
    case DataType::f32: return MPI_FLOAT;
    case DataType::f64: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

// MPI counts are int: larger requests are refused rather than truncated.
int as_count(std::int64_t n, const char* what) {
  if (n < 0 || n > INT_MAX) throw_runtime_error(std::string("MPI: ") + what + ": " + std::to_string(n) + " items is more than one call moves");
  return static_cast<int>(n);
}

// A started MPI_Iallgatherv (it owns the count and displacement arrays, which MPI reads until
// the operation completes) or MPI_Ibcast (none).
class MpiRequest final : public Request {
 public:
  MpiRequest(std::vector<int> counts, std::vector<int> displs)
      : counts_(std::move(counts)), displs_(std::move(displs)) {}
  ~MpiRequest() override {
    if (request_ != MPI_REQUEST_NULL) MPI_Wait(&request_, MPI_STATUS_IGNORE);  // nothing to report to here
  }
  MpiRequest(const MpiRequest&) = delete;
  MpiRequest& operator=(const MpiRequest&) = delete;
  void wait() override {
    if (request_ == MPI_REQUEST_NULL) return;
    NBODY_MPI_CHECK(MPI_Wait(&request_, MPI_STATUS_IGNORE));
  }
  std::vector<int> counts_, displs_;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

class MpiCommunicator final : public Communicator {
 public:
  // Takes `comm` (freed with this object); MPI_COMM_WORLD is duplicated first.
  explicit MpiCommunicator(MPI_Comm comm) : comm_(comm) {
    NBODY_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    NBODY_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    NBODY_MPI_CHECK(MPI_Comm_size(comm_, &size_));
    MPI_Comm node = MPI_COMM_NULL;
    NBODY_MPI_CHECK(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node));
    NBODY_MPI_CHECK(MPI_Comm_rank(node, &local_rank_));
    NBODY_MPI_CHECK(MPI_Comm_size(node, &local_size_));
    NBODY_MPI_CHECK(MPI_Comm_free(&node));
  }
  ~MpiCommunicator() override {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);  // nothing to report to in a destructor
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }
  int local_rank() const noexcept override { return local_rank_; }
  int local_size() const noexcept override { return local_size_; }
  std::string name() const override { return "mpi"; }
  const void* native_handle() const noexcept override { return &comm_; }

  void barrier() override { NBODY_MPI_CHECK(MPI_Barrier(comm_)); }

  std::shared_ptr<Communicator> split(bool member) override {
    MPI_Comm part = MPI_COMM_NULL;
    NBODY_MPI_CHECK(MPI_Comm_split(comm_, member ? 0 : MPI_UNDEFINED, rank_, &part));
    if (part == MPI_COMM_NULL) return nullptr;
    return std::make_shared<MpiCommunicator>(part);
  }

  std::unique_ptr<Request> ibroadcast(void* data, std::int64_t count, DataType type, int root) override {
    auto request = std::make_unique<MpiRequest>(std::vector<int>{}, std::vector<int>{});
    NBODY_MPI_CHECK(MPI_Ibcast(data, as_count(count, "ibroadcast"), mpi_type(type), root, comm_, &request->request_));
    return request;
  }

  void broadcast(void* data, std::int64_t count, DataType type, int root) override {
    // In pieces of at most 2^30 items, so a checkpoint larger than an int of bytes goes too.
    constexpr std::int64_t kPiece = std::int64_t{1} << 30;
    auto* bytes = static_cast<char*>(data);
    for (std::int64_t done = 0; done < count; done += kPiece) {
      const std::int64_t n = std::min(kPiece, count - done);
      NBODY_MPI_CHECK(MPI_Bcast(bytes + done * std::int64_t(size_of(type)), as_count(n, "broadcast"), mpi_type(type),
                                root, comm_));
    }
  }

  void allgatherv(const void* send, void* recv, std::span<const std::int64_t> counts, DataType type) override {
    const auto [c, d] = counts_and_displacements(counts);
    NBODY_MPI_CHECK(MPI_Allgatherv(send, c[std::size_t(rank_)], mpi_type(type), recv, c.data(), d.data(),
                                   mpi_type(type), comm_));
  }

  void allgatherv_in_place(void* data, std::span<const std::int64_t> counts, DataType type) override {
    const auto [c, d] = counts_and_displacements(counts);
    NBODY_MPI_CHECK(
        MPI_Allgatherv(MPI_IN_PLACE, c[std::size_t(rank_)], mpi_type(type), data, c.data(), d.data(), mpi_type(type), comm_));
  }

  std::unique_ptr<Request> iallgatherv_in_place(void* data, std::span<const std::int64_t> counts,
                                                std::span<const std::int64_t> displs, DataType type) override {
    if (counts.size() != std::size_t(size_) || displs.size() != std::size_t(size_)) {
      throw_runtime_error("MPI: iallgatherv: " + std::to_string(counts.size()) + " counts and " +
                          std::to_string(displs.size()) + " displacements for " + std::to_string(size_) + " ranks");
    }
    std::vector<int> c(counts.size()), d(counts.size());
    for (std::size_t r = 0; r < counts.size(); ++r) {
      c[r] = as_count(counts[r], "iallgatherv");
      d[r] = as_count(displs[r], "iallgatherv");
      (void)as_count(displs[r] + counts[r], "iallgatherv");
    }
    auto request = std::make_unique<MpiRequest>(std::move(c), std::move(d));
    NBODY_MPI_CHECK(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, request->counts_.data(),
                                    request->displs_.data(), mpi_type(type), comm_, &request->request_));
    return request;
  }

  void allreduce_max(double* data, std::int64_t count) override {
    NBODY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, data, as_count(count, "allreduce"), MPI_DOUBLE, MPI_MAX, comm_));
  }

  void alltoallv(const void* send, std::span<const std::int64_t> send_counts, void* recv,
                 std::span<const std::int64_t> recv_counts, DataType type) override {
    if (send_counts.size() != std::size_t(size_) || recv_counts.size() != std::size_t(size_)) {
      throw_runtime_error("MPI: alltoallv: " + std::to_string(send_counts.size()) + " send and " +
                          std::to_string(recv_counts.size()) + " receive counts for " + std::to_string(size_) + " ranks");
    }
    const auto [sc, sd] = counts_and_displacements(send_counts);
    const auto [rc, rd] = counts_and_displacements(recv_counts);
    NBODY_MPI_CHECK(MPI_Alltoallv(send, sc.data(), sd.data(), mpi_type(type), recv, rc.data(), rd.data(),
                                  mpi_type(type), comm_));
  }

  void send(const void* data, std::int64_t count, DataType type, int dest, int tag) override {
    NBODY_MPI_CHECK(MPI_Send(data, as_count(count, "send"), mpi_type(type), dest, tag, comm_));
  }
  void recv(void* data, std::int64_t count, DataType type, int source, int tag) override {
    NBODY_MPI_CHECK(MPI_Recv(data, as_count(count, "recv"), mpi_type(type), source, tag, comm_, MPI_STATUS_IGNORE));
  }
  std::unique_ptr<Request> isend(const void* data, std::int64_t count, DataType type, int dest, int tag) override {
    auto request = std::make_unique<MpiRequest>(std::vector<int>{}, std::vector<int>{});
    NBODY_MPI_CHECK(MPI_Isend(data, as_count(count, "isend"), mpi_type(type), dest, tag, comm_, &request->request_));
    return request;
  }
  std::unique_ptr<Request> irecv(void* data, std::int64_t count, DataType type, int source, int tag) override {
    auto request = std::make_unique<MpiRequest>(std::vector<int>{}, std::vector<int>{});
    NBODY_MPI_CHECK(MPI_Irecv(data, as_count(count, "irecv"), mpi_type(type), source, tag, comm_, &request->request_));
    return request;
  }

  // The environment first (a site's MPI may be CUDA-aware without saying so, or a user may want
  // it off), then the library, asked at run time: a library built with CUDA support can still run
  // without it (Open MPI on a node without the CUDA driver, MPICH with MPIR_CVAR_ENABLE_GPU=0).
  DeviceBufferSupport device_buffer_support() const override {
    if (const std::optional<bool> forced = cuda_aware_override())
      return {*forced, std::string("NBODY_MPI_CUDA_AWARE=") + (*forced ? "1" : "0")};
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    // (returns 1 or 0, not an MPI error code: nothing to check)
    if (MPIX_Query_cuda_support() == 1) return {true, "the MPI library reports CUDA support (MPIX_Query_cuda_support)"};
    return {false, "the MPI library reports no CUDA support (MPIX_Query_cuda_support() = 0" +
                       std::string(MPIX_CUDA_AWARE_SUPPORT ? "" : "; built without CUDA") + ")"};
#elif defined(MPIX_GPU_SUPPORT_CUDA)
    int supported = 0;
    NBODY_MPI_CHECK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported));
    if (supported != 0) return {true, "the MPI library reports CUDA support (MPIX_GPU_query_support)"};
    return {false, "the MPI library reports no CUDA support (MPIX_GPU_query_support)"};
#else
    return {false, "the MPI library cannot say whether it takes GPU buffers (no MPIX_Query_cuda_support or "
                   "MPIX_GPU_query_support; NBODY_MPI_CUDA_AWARE=1 tells it that it does)"};
#endif
  }

 private:
  std::pair<std::vector<int>, std::vector<int>> counts_and_displacements(std::span<const std::int64_t> counts) const {
    if (counts.size() != std::size_t(size_)) {
      throw_runtime_error("MPI: allgatherv: " + std::to_string(counts.size()) + " counts for " +
                          std::to_string(size_) + " ranks");
    }
    std::vector<int> c(counts.size()), d(counts.size());
    std::int64_t at = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      c[r] = as_count(counts[r], "allgatherv");
      d[r] = as_count(at, "allgatherv");
      at += counts[r];
    }
    (void)as_count(at, "allgatherv");
    return {std::move(c), std::move(d)};
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  NBODY_MPI_CHECK(MPI_Initialized(&initialized));
  if (initialized) throw_runtime_error("MPI: MPI is already initialized (one MpiSession per process)");
  int provided = 0;
  NBODY_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
  try {
    if (provided < MPI_THREAD_FUNNELED) throw_runtime_error("MPI: the library does not provide MPI_THREAD_FUNNELED");
    MPI_Comm world = MPI_COMM_NULL;
    NBODY_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &world));
    world_ = std::make_shared<MpiCommunicator>(world);
    scope_ = std::make_unique<WorldScope>(world_);
  } catch (...) {
    world_.reset();
    MPI_Finalize();
    throw;
  }
}

MpiSession::~MpiSession() {
  scope_.reset();
  world_.reset();
  MPI_Finalize();
}

void abort_all(int status) noexcept {
  int initialized = 0, finalized = 0, size = 1;
  if (MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized) return;
  if (MPI_Finalized(&finalized) != MPI_SUCCESS || finalized) return;
  if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size <= 1) return;
  MPI_Abort(MPI_COMM_WORLD, status);
}

#else  // no MPI in this build

MpiSession::MpiSession(int*, char***) {
  throw_input_error("this build of nbody has no MPI support (configure with -DNBODY_ENABLE_MPI=ON; Debian: "
                    "libopenmpi-dev)");
}
MpiSession::~MpiSession() = default;
void abort_all(int) noexcept {}

#endif

}  // namespace nbody::comm
