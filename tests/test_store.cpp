// The particle store where each backend keeps its bodies (host memory for the CPU solvers, the
// GPU's for cuda): named fields, permutations of every field at once, views that stay valid,
// segments, and transfers.
#include <numeric>

#include "particles/store.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

class Store : public testing::TestWithParam<BackendCase> {};

// The location a test case's solver computes in.
Location location_of(const BackendCase& c) { return c.backend == "cuda" ? Location::cuda(0) : Location::host(); }

TEST_P(Store, PermuteReordersEveryFieldAndKeepsViews) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto c = GetParam();
  with_state_type(c.precision, [&]<class T>() {
    const std::size_t n = 1000;
    auto system = make_system<T>(c, n, {1.0, 0.01});
    ParticleStore<T>& store = system->store();
    EXPECT_EQ(store.location(), location_of(c));
    const ParticleView<T> before = store.view();
    const Particles<T> p = random_particles(n, 5).as<T>();
    system->upload(p);
    // An extra field of another type, registered by name, zero-initialised.
    std::int32_t* tag = store.template add_field<std::int32_t>("test.tag");
    std::vector<std::int32_t> zeros;
    store.download_field("test.tag", zeros);
    EXPECT_EQ(zeros, std::vector<std::int32_t>(n, 0));
    std::vector<std::int32_t> tags(n);
    std::iota(tags.begin(), tags.end(), 100);
    store.upload_field("test.tag", tags);
    EXPECT_EQ(store.template field<std::int32_t>("test.tag"), tag);
    EXPECT_THROW((void)store.template field<double>("test.tag"), Error);  // another type
    EXPECT_THROW((void)store.template field<T>("no.such"), Error);

    // Reverse every third block: a permutation that is not its own inverse.
    std::vector<std::int32_t> order(n);
    for (std::size_t k = 0; k < n; ++k) order[k] = static_cast<std::int32_t>((k * 7 + 3) % n);
    store.permute(order);
    Particles<T> q;
    system->download(q);
    std::vector<std::int32_t> moved;
    store.download_field("test.tag", moved);
    for (std::size_t k = 0; k < n; ++k) {
      const auto from = static_cast<std::size_t>(order[k]);
      ASSERT_EQ(q.x[k], p.x[from]) << k;
      ASSERT_EQ(q.vz[k], p.vz[from]) << k;
      ASSERT_EQ(q.m[k], p.m[from]) << k;
      ASSERT_EQ(q.id[k], p.id[from]) << k;
      ASSERT_EQ(moved[k], tags[from]) << k;
    }
    // The pointers every view holds did not move.
    const ParticleView<T> after = store.view();
    EXPECT_EQ(after.x.x, before.x.x);
    EXPECT_EQ(after.v.z, before.v.z);
    EXPECT_EQ(after.id, before.id);
    EXPECT_EQ(store.template field<std::int32_t>("test.tag"), tag);

    const std::vector<std::int32_t> repeated(n, 0);
    EXPECT_THROW(store.permute(repeated), Error);
  });
}

TEST_P(Store, SegmentsMustTileTheBodies) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto c = GetParam();
  with_state_type(c.precision, [&]<class T>() {
    auto system = make_system<T>(c, 100, {1.0, 0.01});
    ParticleStore<T>& store = system->store();
    EXPECT_EQ(store.segments(), (std::vector<Segment>{{0, 100}}));
    store.set_segments({{0, 40}, {40, 60}});
    EXPECT_EQ(store.segments().size(), 2u);
    EXPECT_THROW(store.set_segments({{0, 40}, {50, 50}}), Error);  // a gap
    EXPECT_THROW(store.set_segments({{0, 40}, {40, 50}}), Error);  // short of n
  });
}

// The solver's targets and sources are separate views: the forces on a slice of the bodies from
// all of them are those rows of the whole pass.
TEST_P(Store, ForcesOnASliceOfTargetsMatchTheWholePass) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto c = GetParam();
  with_state_type(c.precision, [&]<class T>() {
    const std::size_t n = 1500, first = 500, count = 700;
    auto system = make_system<T>(c, n, {1.0, 0.01});
    system->upload(random_particles(n, 8).as<T>());
    system->compute_accelerations();
    Accelerations<T> whole;
    system->download_accelerations(whole);
    const Location at = system->store().location();
    Array<T> ax(at, count), ay(at, count), az(at, count);
    const ParticleView<T> slice = system->view().slice(int(first), int(count));
    TargetView<T> targets = slice.targets();
    targets.self = int(first);
    const std::uint64_t before = system->interactions();
    system->solver().accelerations(targets, system->view().sources(), {ax.data(), ay.data(), az.data()});
    EXPECT_EQ(system->interactions() - before, std::uint64_t(count) * n);
    std::vector<T> part(count);
    copy_bytes(part.data(), Location::host(), ay.data(), at, count * sizeof(T), system->store().stream());
    for (std::size_t k = 0; k < count; ++k) {
      // The same sums in the same order for the same target: the same bits.
      ASSERT_EQ(part[k], whole.ay[first + k]) << k;
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Backends, Store, testing::ValuesIn(backend_cases()), case_name);

}  // namespace
}  // namespace nbody::test
