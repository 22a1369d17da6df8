// Runs under mpirun with any number of ranks (ctest: 1, 2 and 3): the communicator's collectives,
// the distributed direct sum against the single-process solvers bit for bit, and whole
// simulations on every rank against the same simulation made for one process alone.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "comm/block_gather.hpp"
#include "comm/communicator.hpp"
#include "comm/mpi_communicator.hpp"
#include "core/rng.hpp"
#include "gravity/direct/cpu_solvers.hpp"
#include "gravity/direct/distributed.hpp"
#include "gravity/names.hpp"
#include "ic/ic.hpp"
#include "io/gadget_hdf5.hpp"
#include "nbody/error.hpp"
#include "nbody/simulation.hpp"

namespace nbody {
namespace {

comm::Communicator& world() { return comm::world(); }

TEST(Communicator, RankAndSize) {
  EXPECT_GE(world().size(), 1);
  EXPECT_GE(world().rank(), 0);
  EXPECT_LT(world().rank(), world().size());
  EXPECT_LT(world().local_rank(), world().local_size());
  const auto ranks = world().allgather_value<std::int32_t>(world().rank());
  for (int r = 0; r < world().size(); ++r) EXPECT_EQ(ranks[std::size_t(r)], r);
}

TEST(Communicator, BlocksTileTheRange) {
  for (std::int64_t n : {0, 1, 2, 7, 97, 1000}) {
    for (int p = 1; p <= 5; ++p) {
      std::int64_t next = 0;
      for (int r = 0; r < p; ++r) {
        const comm::Block b = comm::block_of(n, p, r);
        EXPECT_EQ(b.first, next);
        EXPECT_GE(b.count, n / p);
        EXPECT_LE(b.count, n / p + 1);
        next += b.count;
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST(Communicator, BroadcastFromEveryRoot) {
  for (int root = 0; root < world().size(); ++root) {
    std::vector<double> v(5, world().rank() == root ? 1.5 + root : -1.0);
    world().broadcast(std::span<double>(v), root);
    for (double x : v) EXPECT_EQ(x, 1.5 + root);
    const std::string bytes = world().broadcast_bytes(world().rank() == root ? std::string(300, char('a' + root)) : "", root);
    EXPECT_EQ(bytes, std::string(300, char('a' + root)));
  }
}

TEST(Communicator, AllgathervOfUnequalBlocks) {
  const int p = world().size(), r = world().rank();
  // Rank r holds r + 1 values r * 100 + k.
  std::vector<std::int64_t> mine(std::size_t(r + 1));
  for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = r * 100 + std::int64_t(k);
  const auto all = world().allgatherv(std::span<const std::int64_t>(mine));
  std::size_t at = 0;
  for (int q = 0; q < p; ++q) {
    for (int k = 0; k <= q; ++k) EXPECT_EQ(all[at++], q * 100 + k);
  }
  EXPECT_EQ(at, all.size());
}

TEST(Communicator, AllgathervInPlace) {
  const int p = world().size(), r = world().rank();
  const std::int64_t n = 23;
  const auto counts = comm::block_counts(n, p);
  std::vector<float> data(std::size_t(n), -1.0f);
  const comm::Block b = comm::block_of(n, p, r);
  for (std::int64_t i = b.first; i < b.first + b.count; ++i) data[std::size_t(i)] = float(i) * 0.5f;
  world().allgatherv_in_place(data.data(), counts, comm::DataType::f32);
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(data[std::size_t(i)], float(i) * 0.5f);
}

TEST(Communicator, SumsInRankOrder) {
  // Values whose sum depends on the order of the additions: the result must be the rank-order sum.
  const int p = world().size(), r = world().rank();
  const double mine = r == 0 ? 1.0 : (r % 2 ? 1e-16 : 3e-17) * r;
  double expected = 1.0;
  for (int q = 1; q < p; ++q) expected += (q % 2 ? 1e-16 : 3e-17) * q;
  const double got = world().allreduce_sum(mine);
  EXPECT_EQ(std::memcmp(&got, &expected, sizeof got), 0) << got << " vs " << expected;
  EXPECT_EQ(world().allreduce_max(double(r)), double(p - 1));
}

TEST(Communicator, RingOfMessages) {
  const int p = world().size(), r = world().rank();
  if (p == 1) GTEST_SKIP() << "point to point needs two ranks";
  const std::int32_t out = r * 7;
  std::int32_t in = -1;
  const int next = (r + 1) % p, prev = (r + p - 1) % p;
  if (r % 2 == 0) {
    world().send(&out, 1, comm::DataType::i32, next, 5);
    world().recv(&in, 1, comm::DataType::i32, prev, 5);
  } else {
    world().recv(&in, 1, comm::DataType::i32, prev, 5);
    world().send(&out, 1, comm::DataType::i32, next, 5);
  }
  EXPECT_EQ(in, prev * 7);
}

// Non-blocking messages around the ring, both ways at once: every receive and send posted before
// any is waited for (the PIC blocks' CUDA-aware guard exchange does so with device buffers).
TEST(Communicator, NonBlockingMessagesBothWays) {
  const int p = world().size(), r = world().rank();
  if (p == 1) {
    comm::NullCommunicator one;
    double x = 0;
    EXPECT_THROW((void)one.isend(&x, 1, comm::DataType::f64, 1, 0), Error);
    EXPECT_THROW((void)one.irecv(&x, 1, comm::DataType::f64, 1, 0), Error);
    GTEST_SKIP() << "point to point needs two ranks";
  }
  const int next = (r + 1) % p, prev = (r + p - 1) % p;
  const std::vector<double> to_next{r + 0.5, -r - 0.25}, to_prev{10.0 * r, 1.0};
  std::vector<double> from_prev(2, -1.0), from_next(2, -1.0);
  std::vector<std::unique_ptr<comm::Request>> pending;
  // (with two ranks prev == next: the tags tell the two messages apart)
  pending.push_back(world().irecv(from_prev.data(), 2, comm::DataType::f64, prev, 40));
  pending.push_back(world().irecv(from_next.data(), 2, comm::DataType::f64, next, 41));
  pending.push_back(world().isend(to_next.data(), 2, comm::DataType::f64, next, 40));
  pending.push_back(world().isend(to_prev.data(), 2, comm::DataType::f64, prev, 41));
  for (auto& q : pending) q->wait();
  EXPECT_EQ(from_prev, (std::vector<double>{prev + 0.5, -prev - 0.25}));
  EXPECT_EQ(from_next, (std::vector<double>{10.0 * next, 1.0}));
}

// Device buffers to MPI (CUDA-aware MPI): the library's answer at run time, or
// NBODY_MPI_CUDA_AWARE's (1: yes, 0: no, another value: an input error naming it); one process
// without MPI never (it sends nothing). Every rank hears the same answer.
TEST(Communicator, DeviceBufferSupportFollowsTheLibraryAndTheOverride) {
  ::unsetenv("NBODY_MPI_CUDA_AWARE");
  EXPECT_EQ(comm::cuda_aware_override(), std::nullopt);
  const comm::DeviceBufferSupport asked = world().device_buffer_support();
  EXPECT_FALSE(asked.how.empty());
  const comm::NullCommunicator one;
  EXPECT_FALSE(one.device_buffers_supported());
  const auto answers = world().allgather_value<std::int32_t>(asked.supported ? 1 : 0);
  for (std::int32_t a : answers) EXPECT_EQ(a, answers[0]) << "the ranks disagree";
  if (world().rank() == 0) std::printf("[ device buffers to %s: %s ]\n", world().name().c_str(), asked.how.c_str());
  const bool mpi = world().name() == "mpi";

  ::setenv("NBODY_MPI_CUDA_AWARE", "1", 1);
  EXPECT_EQ(comm::cuda_aware_override(), std::optional<bool>(true));
  EXPECT_EQ(world().device_buffers_supported(), mpi);
  if (mpi) EXPECT_EQ(world().device_buffer_support().how, "NBODY_MPI_CUDA_AWARE=1");
  EXPECT_FALSE(one.device_buffers_supported());

  ::setenv("NBODY_MPI_CUDA_AWARE", "0", 1);
  EXPECT_EQ(comm::cuda_aware_override(), std::optional<bool>(false));
  EXPECT_FALSE(world().device_buffers_supported());
  if (mpi) EXPECT_EQ(world().device_buffer_support().how, "NBODY_MPI_CUDA_AWARE=0");

  ::setenv("NBODY_MPI_CUDA_AWARE", "", 1);  // (empty: as unset)
  EXPECT_EQ(world().device_buffers_supported(), asked.supported);

  ::setenv("NBODY_MPI_CUDA_AWARE", "yes", 1);
  try {
    (void)comm::cuda_aware_override();
    ADD_FAILURE() << "NBODY_MPI_CUDA_AWARE=yes not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_status(), 2);
    EXPECT_NE(std::string(e.what()).find("NBODY_MPI_CUDA_AWARE"), std::string::npos) << e.what();
  }
  if (mpi) EXPECT_THROW((void)world().device_buffer_support(), Error);
  ::unsetenv("NBODY_MPI_CUDA_AWARE");
}

// ---- the distributed direct sum -------------------------------------------------------------

template <class T>
struct Bodies {
  std::vector<T> x, y, z, vx, vy, vz, m;
  explicit Bodies(int n, std::uint64_t seed) {
    Rng rng(seed);
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &m}) v->resize(std::size_t(n));
    for (int i = 0; i < n; ++i) {
      x[i] = T(rng.normal()), y[i] = T(rng.normal()), z[i] = T(rng.normal());
      vx[i] = T(rng.normal()), vy[i] = T(rng.normal()), vz[i] = T(rng.normal());
      m[i] = T(rng.uniform(0.5, 1.5) / n);
    }
  }
  SourceView<T> sources() const { return {x.data(), y.data(), z.data(), m.data(), int(m.size())}; }
  TargetView<T> targets() const { return {x.data(), y.data(), z.data(), int(m.size()), 0}; }
  MotionView<T> motion() const {
    return {{x.data(), y.data(), z.data()}, {vx.data(), vy.data(), vz.data()}, m.data(), int(m.size())};
  }
};

template <class T>
struct Out {
  std::vector<T> x, y, z;
  explicit Out(std::size_t n) : x(n, T(-7)), y(n, T(-7)), z(n, T(-7)) {}
  Vec3Span<T> span() { return {x.data(), y.data(), z.data()}; }
  bool operator==(const Out& o) const {
    return std::memcmp(x.data(), o.x.data(), x.size() * sizeof(T)) == 0 &&
           std::memcmp(y.data(), o.y.data(), y.size() * sizeof(T)) == 0 &&
           std::memcmp(z.data(), o.z.data(), z.size() * sizeof(T)) == 0;
  }
};

template <class T>
std::unique_ptr<ForceSolver<T>> local_solver(const std::string& kind, const GravityParams& g) {
  if (kind == "reference") return make_reference_solver<T>(g);
  return make_cpu_direct_solver<T>(g, kind == "mixed");
}

template <class T>
void check_same_bits_as_one_process(const std::string& kind, SofteningLaw law, double eps) {
  const GravityParams g{1.0, eps, law};
  for (int n : {1, 2, 61, 97, 1030}) {
    const Bodies<T> b(n, 42 + std::uint64_t(n));
    Out<T> single{std::size_t(n)}, spread{std::size_t(n)};
    local_solver<T>(kind, g)->accelerations(b.targets(), b.sources(), single.span());
    DistributedSolver<T> d(local_solver<T>(kind, g), comm::world_shared(), comm::make_host_gather(comm::world_shared()));
    d.accelerations(b.targets(), b.sources(), spread.span());
    EXPECT_TRUE(single == spread) << kind << " n = " << n << " on " << world().size() << " ranks";
    EXPECT_EQ(d.interactions(), std::uint64_t(n) * std::uint64_t(n));

    // The pipelined exchange (pieces of each block gathered by non-blocking collectives while the
    // next piece is computed): the same bits, for any number of pieces (more than targets too).
    for (const int chunks : {1, 3, 4, 7}) {
      DistributedSolver<T> p(local_solver<T>(kind, g), comm::world_shared(),
                             comm::make_host_gather(comm::world_shared()), Exchange::pipelined, chunks);
      Out<T> piped{std::size_t(n)};
      p.accelerations(b.targets(), b.sources(), piped.span());
      EXPECT_TRUE(single == piped) << kind << " pipelined in " << chunks << " pieces, n = " << n << " on "
                                   << world().size() << " ranks";
    }

    // Hermite's pass on an active subset (every third body).
    std::vector<std::int32_t> active;
    for (int i = 0; i < n; i += 3) active.push_back(i);
    const IndexView idx{active.data(), int(active.size())};
    Out<T> a1{active.size()}, j1{active.size()}, a2{active.size()}, j2{active.size()};
    local_solver<T>(kind, g)->acc_jerk(idx, b.motion(), a1.span(), j1.span());
    d.acc_jerk(idx, b.motion(), a2.span(), j2.span());
    EXPECT_TRUE(a1 == a2 && j1 == j2) << kind << " acc_jerk n = " << n;

    const double w1 = local_solver<T>(kind, g)->potential_energy(b.sources());
    const double w2 = d.potential_energy(b.sources());
    EXPECT_EQ(std::memcmp(&w1, &w2, sizeof w1), 0);
  }
}

TEST(DistributedSolver, ExchangeNamesAndBadChunks) {
  EXPECT_EQ(parse_exchange("gather"), Exchange::gather);
  EXPECT_EQ(parse_exchange("pipelined"), Exchange::pipelined);
  EXPECT_THROW((void)parse_exchange("ring"), Error);
  const GravityParams g{1.0, 0.01, SofteningLaw::plummer};
  EXPECT_THROW(DistributedSolver<float>(local_solver<float>("direct", g), comm::world_shared(),
                                        comm::make_host_gather(comm::world_shared()), Exchange::pipelined, 0),
               Error);
}

// Non-blocking gathers of pieces at any place, several outstanding at once, waited in any order.
TEST(Communicator, NonBlockingGathersOfPieces) {
  const int p = world().size(), r = world().rank();
  const std::int64_t n = 41;
  std::vector<double> data(std::size_t(n), -1.0);
  std::vector<std::unique_ptr<comm::Request>> requests;
  for (int k = 0; k < 3; ++k) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(p)), displs(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) {
      const comm::Block block = comm::block_of(n, p, q);
      const comm::Block piece = comm::block_of(block.count, 3, k);
      counts[std::size_t(q)] = piece.count;
      displs[std::size_t(q)] = block.first + piece.first;
    }
    for (std::int64_t i = 0; i < counts[std::size_t(r)]; ++i) {
      const std::int64_t at = displs[std::size_t(r)] + i;
      data[std::size_t(at)] = 0.25 * double(at);
    }
    requests.push_back(world().iallgatherv_in_place(data.data(), counts, displs, comm::DataType::f64));
  }
  for (auto it = requests.rbegin(); it != requests.rend(); ++it) (*it)->wait();
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(data[std::size_t(i)], 0.25 * double(i)) << i;
}

TEST(DistributedSolver, SameBitsAsOneProcessFp32) { check_same_bits_as_one_process<float>("direct", SofteningLaw::plummer, 0.01); }
TEST(DistributedSolver, SameBitsAsOneProcessFp64) { check_same_bits_as_one_process<double>("direct", SofteningLaw::plummer, 0.01); }
TEST(DistributedSolver, SameBitsAsOneProcessMixed) { check_same_bits_as_one_process<double>("mixed", SofteningLaw::plummer, 0.01); }
TEST(DistributedSolver, SameBitsAsOneProcessSpline) { check_same_bits_as_one_process<float>("direct", SofteningLaw::spline, 0.05); }
TEST(DistributedSolver, SameBitsAsOneProcessUnsoftened) { check_same_bits_as_one_process<double>("direct", SofteningLaw::plummer, 0.0); }
TEST(DistributedSolver, SameBitsAsOneProcessReference) { check_same_bits_as_one_process<double>("reference", SofteningLaw::plummer, 0.01); }

// ---- whole simulations ------------------------------------------------------------------------

struct SimCase {
  const char* device;
  const char* integrator;
  const char* dt_mode;
  const char* precision;
  const char* ic;
};

std::string state_bits(Simulation& sim) {
  const Checkpoint ck = sim.checkpoint();
  std::string bits;
  std::visit([&](const auto& p) {
    for (const auto* v : {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.m}) {
      bits.append(reinterpret_cast<const char*>(v->data()), v->size() * sizeof((*v)[0]));
    }
  }, ck.state);
  bits.append(ck.integrator.bytes.begin(), ck.integrator.bytes.end());
  return bits;
}

class DistributedSimulation : public testing::TestWithParam<SimCase> {};

TEST_P(DistributedSimulation, SameStateAsOneProcess) {
  const SimCase c = GetParam();
  std::string why;
  if (std::string(c.device) == "cuda" && !cuda_device_available(&why)) GTEST_SKIP() << why;
  RunConfig cfg;
  cfg.device = c.device;
  cfg.threads = 1;
  cfg.n = 67;  // not a multiple of 2 or 3: blocks of unequal size
  cfg.ic = c.ic;
  cfg.integrator = c.integrator;
  cfg.dt_mode = c.dt_mode;
  cfg.precision = c.precision;
  cfg.softening = 0.05;
  cfg.dt = 1.0 / 128;
  std::string alone_bits, alone_diag;
  {
    comm::WorldScope alone(std::make_shared<comm::NullCommunicator>());
    auto sim = Simulation::create(cfg);
    sim->advance(9);
    alone_bits = state_bits(*sim);
    const Diagnostics d = sim->diagnostics();
    alone_diag.assign(reinterpret_cast<const char*>(&d), sizeof d);
  }
  auto sim = Simulation::create(cfg);
  sim->advance(4);
  sim->advance(5);
  EXPECT_EQ(state_bits(*sim), alone_bits) << c.integrator << " " << c.dt_mode << " " << c.precision;
  const Diagnostics d = sim->diagnostics();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(&d), sizeof d), alone_diag);
  // Every rank holds the same state.
  const std::string mine = state_bits(*sim);
  EXPECT_EQ(world().broadcast_bytes(mine, 0), mine);
}

// ---- collective HDF5 snapshots ------------------------------------------------------------------

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every rank writes its block of the bodies into one file (MPI-IO): the file has the bytes of the
// file one process writes, for fp32 and fp64, and for fewer bodies than ranks (ranks with no rows);
// a model of several components (galaxy-collision) splits its bodies over particle types, each
// with its own blocks.
TEST(ParallelHdf5, CollectiveFileHasTheBytesOfOneProcess) {
  if (!parallel_hdf5_available()) GTEST_SKIP() << "this build has no parallel HDF5 (NBODY_HDF5_PARALLEL=OFF)";
  if (world().native_handle() == nullptr) GTEST_SKIP() << "not started by mpirun";
  const std::string dir = world().broadcast_bytes(
      world().rank() == 0 ? testing::TempDir() + "nbody_parallel_hdf5_" + std::to_string(::getpid()) : "", 0);
  if (world().rank() == 0) std::filesystem::create_directories(dir);
  world().barrier();
  RunConfig cfg;
  cfg.n = 67;
  for (const char* model : {"plummer", "galaxy-collision"}) {
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{2}, std::int64_t{67}, std::int64_t{1000}}) {
    if (std::string(model) == "galaxy-collision" && n < 67) continue;
    for (const Precision precision : {Precision::fp32, Precision::fp64}) {
      const Particles<double> p = make_initial_conditions({model, n, 7});
      const SnapshotMeta meta{precision, 0.375, &cfg, std::nullopt};
      const std::string tag =
          std::string(model) + "_" + std::to_string(n) + (precision == Precision::fp32 ? "_fp32" : "_fp64");
      const std::filesystem::path alone = dir + "/alone_" + tag + ".hdf5", together = dir + "/together_" + tag + ".hdf5";
      if (world().rank() == 0) write_gadget_hdf5(alone, p, meta);
      write_gadget_hdf5_collective(together, p, meta, world());
      if (world().rank() == 0) {
        EXPECT_TRUE(file_bytes(alone) == file_bytes(together)) << tag << " on " << world().size() << " ranks";
        const ParticleFileData back = read_gadget_hdf5(together);
        const Particles<double> expect = precision == Precision::fp32 ? p.as<float>().as<double>() : p;
        EXPECT_EQ(back.particles.x, expect.x) << tag;
        EXPECT_EQ(back.particles.vz, expect.vz) << tag;
        EXPECT_EQ(back.particles.m, expect.m) << tag;
        EXPECT_EQ(back.particles.id, expect.id) << tag;
        EXPECT_EQ(back.particles.component, expect.component) << tag;
        EXPECT_EQ(back.particles.component_names, expect.component_names) << tag;
        // Renamed into place: no temporary is left.
        for (const auto& e : std::filesystem::directory_iterator(dir)) {
          EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
        }
      }
      world().barrier();
    }
  }
  }
  if (world().rank() == 0 && !HasFailure()) std::filesystem::remove_all(dir);
}

// A failure is a runtime error on the ranks (here every rank: the directory does not exist), and
// nothing is left behind.
TEST(ParallelHdf5, AFailedCollectiveWriteIsAnErrorOnEveryRank) {
  if (!parallel_hdf5_available()) GTEST_SKIP() << "this build has no parallel HDF5 (NBODY_HDF5_PARALLEL=OFF)";
  if (world().native_handle() == nullptr) GTEST_SKIP() << "not started by mpirun";
  const Particles<double> p = make_initial_conditions({"plummer", 10, 7});
  const std::filesystem::path target = testing::TempDir() + "nbody_no_such_dir_" + std::to_string(::getpid()) + "/s.hdf5";
  try {
    write_gadget_hdf5_collective(target, p, {Precision::fp64, 0.0, nullptr, std::nullopt}, world());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_NE(std::string(e.what()).find("s.hdf5"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(target.parent_path()));
  world().barrier();
}

INSTANTIATE_TEST_SUITE_P(Integrators, DistributedSimulation,
                         testing::Values(SimCase{"cpu", "euler", "fixed", "fp32", "plummer"},
                                         SimCase{"cpu", "leapfrog", "fixed", "fp64", "plummer"},
                                         SimCase{"cpu", "leapfrog", "auto", "fp32", "king"},
                                         SimCase{"cpu", "yoshida4", "fixed", "mixed", "plummer"},
                                         SimCase{"cpu", "hermite4", "block", "fp64", "plummer"},
                                         // On GPUs (one per rank; skipped without a device).
                                         SimCase{"cuda", "euler", "fixed", "fp32", "plummer"},
                                         SimCase{"cuda", "leapfrog", "fixed", "fp64", "plummer"},
                                         SimCase{"cuda", "leapfrog", "auto", "mixed", "king"},
                                         SimCase{"cuda", "hermite4", "block", "fp64", "plummer"}));

}  // namespace
}  // namespace nbody

// Every rank runs every test; the exit status is the worst of the ranks', so mpirun fails when
// any rank does.
int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  std::unique_ptr<nbody::comm::MpiSession> mpi;
  if (nbody::comm::launched_by_mpi()) mpi = std::make_unique<nbody::comm::MpiSession>(&argc, &argv);
  int status = RUN_ALL_TESTS();
  status = static_cast<int>(nbody::comm::world().allreduce_max(double(status)));
  return status;
}
