// Components: the models tag their bodies (disk, bulge, halo of each galaxy; star, planets), and
// the tag follows each body's id through the store's permutations, a tree run, checkpoints (and
// a resume) and the particle files.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>

#include "ic/ic.hpp"
#include "io/checkpoint.hpp"
#include "io/csv_snapshot.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"
#include "nbody/simulation.hpp"
#include "particles/store.hpp"
#include "support.hpp"

#if NBODY_HAVE_HDF5
#include <hdf5.h>
#endif

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kCollisionNames = {"galaxy1.disk", "galaxy1.bulge", "galaxy1.halo",
                                                  "galaxy2.disk", "galaxy2.bulge", "galaxy2.halo"};

RunConfig collision_config(std::int64_t n) {
  RunConfig cfg;
  cfg.ic = "galaxy-collision";
  cfg.n = n;
  cfg.seed = 5;
  cfg.device = "cpu";
  cfg.precision = "fp64";
  cfg.dt = 1e-3;
  cfg.softening = 1e-2;
  return cfg;
}

Particles<double> collision(std::int64_t n) {
  const RunConfig cfg = collision_config(n);
  return make_initial_conditions({cfg.ic, cfg.n, static_cast<std::uint64_t>(cfg.seed), cfg});
}

std::vector<std::size_t> counts(const Particles<double>& p, std::size_t kinds) {
  std::vector<std::size_t> c(kinds, 0);
  for (std::size_t i = 0; i < p.size(); ++i) ++c.at(p.component[i]);
  return c;
}

std::map<std::uint64_t, std::uint8_t> component_by_id(const Particles<double>& p) {
  std::map<std::uint64_t, std::uint8_t> out;
  for (std::size_t i = 0; i < p.size(); ++i) out[p.id[i]] = p.component[i];
  return out;
}

template <class V>
bool same_bits(const std::vector<V>& a, const std::vector<V>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0;
}

TEST(Components, GalaxyCollisionHasTheModelsCounts) {
  // n = 1001: galaxy 1 has 501 bodies, galaxy 2 500; disk 15 %, bulge 5 % (the defaults),
  // rounded: 75 + 25 + 401 and 75 + 25 + 400.
  const Particles<double> p = collision(1001);
  EXPECT_EQ(p.component_names, kCollisionNames);
  EXPECT_EQ(counts(p, 6), (std::vector<std::size_t>{75, 25, 401, 75, 25, 400}));
  // Galaxy 1 holds ids 0 .. 500 (disk, bulge, halo in order), galaxy 2 the rest.
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::uint64_t id = p.id[i];
    const std::uint8_t expect = id < 75 ? 0 : id < 100 ? 1 : id < 501 ? 2 : id < 576 ? 3 : id < 601 ? 4 : 5;
    ASSERT_EQ(p.component[i], expect) << "id " << id;
  }
  // The per-body draws (any slice) tag the same way as the whole model.
  const RunConfig cfg = collision_config(1001);
  const Particles<double> slice = draw_bodies({cfg.ic, cfg.n, 5, cfg}, 490, 610);
  EXPECT_EQ(slice.component_names, kCollisionNames);
  for (std::size_t k = 0; k < slice.size(); ++k) EXPECT_EQ(slice.component[k], p.component[490 + k]) << k;
}

TEST(Components, DiskGalaxyAndSolarSystemAndOneComponentModels) {
  RunConfig cfg;
  cfg.disk_fraction = 0.3;
  cfg.bulge_fraction = 0.1;
  const Particles<double> g = make_initial_conditions({"disk-galaxy", 200, 3, cfg});
  EXPECT_EQ(g.component_names, (std::vector<std::string>{"disk", "bulge", "halo"}));
  EXPECT_EQ(counts(g, 3), (std::vector<std::size_t>{60, 20, 120}));

  RunConfig solar;
  solar.units = "solar";
  const Particles<double> s = make_initial_conditions({"solar-system", 10, 0, solar});
  EXPECT_EQ(s.component_names, (std::vector<std::string>{"star", "planet", "dwarf-planet"}));
  EXPECT_EQ(s.component, (std::vector<std::uint8_t>{0, 1, 1, 1, 1, 1, 1, 1, 1, 2}));

  const Particles<double> pl = make_initial_conditions({"plummer", 50, 1, RunConfig{}});
  EXPECT_EQ(pl.component_names, std::vector<std::string>{"stars"});
  EXPECT_EQ(counts(pl, 1), std::vector<std::size_t>{50});
}

TEST(Components, AStorePermutationKeepsEachIdsComponent) {
  Particles<double> p = collision(60);
  ParticleStore<double> store(p.size(), Location::host());
  store.upload(p);
  std::vector<std::int32_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::reverse(order.begin(), order.end());
  std::rotate(order.begin(), order.begin() + 17, order.end());
  store.permute(order);
  Particles<double> back;
  store.download(back);
  EXPECT_EQ(back.id[0], p.id[order[0]]);
  EXPECT_EQ(component_by_id(back), component_by_id(p));
  EXPECT_NE(back.component, p.component);  // they did move
}

TEST(Components, ATreeRunKeepsEachIdsComponentAndTheNames) {
  RunConfig cfg = collision_config(600);
  cfg.gravity = "tree";
  auto sim = Simulation::create(cfg);
  const Particles<double> before = sim->particles();
  EXPECT_EQ(before.component_names, kCollisionNames);
  sim->advance(3);
  const Particles<double> after = sim->particles();
  EXPECT_EQ(after.component_names, kCollisionNames);
  EXPECT_EQ(sim->component_names(), kCollisionNames);
  EXPECT_EQ(component_by_id(after), component_by_id(before));
  EXPECT_EQ(counts(after, 6), counts(before, 6));
}

TEST(Components, CheckpointRoundTripAndResumeAreBitIdentical) {
  const RunConfig cfg = collision_config(300);
  auto straight = Simulation::create(cfg);
  straight->advance(8);
  auto first = Simulation::create(cfg);
  first->advance(4);
  const Checkpoint ck = first->checkpoint();
  const std::string bytes = encode_checkpoint(ck);
  EXPECT_EQ(bytes.substr(8, 4), std::string("\x03\x00\x00\x00", 4));  // version 3
  const Checkpoint back = decode_checkpoint(bytes, "memory");
  const auto& p = std::get<Particles<double>>(back.state);
  EXPECT_EQ(p.component_names, kCollisionNames);
  EXPECT_EQ(p.component, std::get<Particles<double>>(ck.state).component);
  EXPECT_EQ(encode_checkpoint(back), bytes);
  auto resumed = Simulation::create_from_checkpoint(back);
  resumed->advance(4);
  const Particles<double> a = straight->particles(), b = resumed->particles();
  EXPECT_TRUE(same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z));
  EXPECT_TRUE(same_bits(a.vx, b.vx) && same_bits(a.vy, b.vy) && same_bits(a.vz, b.vz));
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.component, b.component);
  EXPECT_EQ(b.component_names, kCollisionNames);
}

TEST(Components, AVersion2CheckpointReadsAsOneUnnamedComponent) {
  const Checkpoint ck = read_checkpoint(fs::path(NBODY_TEST_DATA) / "release_run" / "checkpoint_0000000004.ckpt");
  std::visit(
      [](const auto& p) {
        EXPECT_GT(p.size(), 0u);
        EXPECT_TRUE(p.component_names.empty());
        EXPECT_EQ(p.component, std::vector<std::uint8_t>(p.size(), 0));
      },
      ck.state);
  // Written again, it is a version-3 checkpoint of the same state.
  const Checkpoint again = decode_checkpoint(encode_checkpoint(ck), "memory");
  EXPECT_EQ(std::visit([](const auto& p) { return p.size(); }, again.state),
            std::visit([](const auto& p) { return p.size(); }, ck.state));
}

TEST(Components, ACheckpointTagWithoutANameIsRefused) {
  const RunConfig cfg = collision_config(60);
  auto sim = Simulation::create(cfg);
  Checkpoint ck = sim->checkpoint();
  std::get<Particles<double>>(ck.state).component[7] = 6;
  const Checkpoint back = decode_checkpoint(encode_checkpoint(ck), "bad.ckpt");
  try {
    validate_checkpoint(back, "bad.ckpt");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.ckpt: checkpoint state: particle 7: component 6 has no name"),
              std::string::npos)
        << e.what();
  }
}

void expect_same_set(const Particles<double>& a, const Particles<double>& b, bool exact) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.component, b.component);
  EXPECT_EQ(a.component_names, b.component_names);
  if (exact) EXPECT_TRUE(same_bits(a.x, b.x) && same_bits(a.vz, b.vz) && same_bits(a.m, b.m));
}

TEST(Components, CsvRoundTripKeepsComponentsAndNames) {
  const Particles<double> p = collision(90);
  const fs::path file = fs::path(temp_dir("components_csv")) / "p.csv";
  write_particle_file(file, ParticleFormat::csv, p, SnapshotMeta{});
  const std::string text = read_text(file.string());
  EXPECT_EQ(text.substr(0, text.find('\n')), "id,m,x,y,z,vx,vy,vz,component");
  EXPECT_NE(text.find("# components = galaxy1.disk, galaxy1.bulge, galaxy1.halo, galaxy2.disk, galaxy2.bulge, "
                      "galaxy2.halo\n"),
            std::string::npos);
  expect_same_set(read_particle_file(file).particles, p, true);

  // Without names a set is written as before (8 columns) and reads back without names.
  Particles<double> plain = p;
  plain.component_names.clear();
  plain.component.assign(p.size(), 0);
  write_particle_file(file, ParticleFormat::csv, plain, SnapshotMeta{});
  EXPECT_EQ(read_text(file.string()).substr(0, 20), "id,m,x,y,z,vx,vy,vz\n");
  expect_same_set(read_particle_file(file).particles, plain, true);

  // A component column without the names comment: numbered names.
  std::ofstream(file) << "id,m,x,y,z,vx,vy,vz,component\n0,1,0,0,0,0,0,0,2\n1,1,1,0,0,0,0,0,0\n";
  const Particles<double> numbered = read_particle_file(file).particles;
  EXPECT_EQ(numbered.component, (std::vector<std::uint8_t>{2, 0}));
  EXPECT_EQ(numbered.component_names, (std::vector<std::string>{"component0", "component1", "component2"}));
}

TEST(Components, CsvBadComponentsAreNamedErrors) {
  const fs::path file = fs::path(temp_dir("components_csv_bad")) / "bad.csv";
  const auto error_of = [&](const std::string& text) {
    std::ofstream(file) << text;
    try {
      (void)read_particle_file(file);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::input);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string head = "id,m,x,y,z,vx,vy,vz,component\n";
  EXPECT_NE(error_of(head + "# components = a, b\n0,1,0,0,0,0,0,0,2\n").find("line 3: component 2 has no name"),
            std::string::npos);
  EXPECT_NE(error_of(head + "0,1,0,0,0,0,0,0,256\n").find("line 2: component is not a whole number from 0 to 255"),
            std::string::npos);
  EXPECT_NE(error_of(head + "# components = a, a\n0,1,0,0,0,0,0,0,0\n")
                .find("line 2: component name 'a' appears twice"),
            std::string::npos);
  EXPECT_NE(error_of(head + "0,1,0,0,0,0,0,0\n").find("line 2: 8 values, expected 9"), std::string::npos);
}

TEST(Components, Hdf5RoundTripRestoresOrderAndComponents) {
  if (!hdf5_available()) GTEST_SKIP() << "skipped: built without HDF5";
  // Shuffled, so that the file's grouping by type must be undone by BodyIndex, not by ids.
  Particles<double> p = collision(90);
  std::swap(p.id[3], p.id[80]);
  const fs::path file = fs::path(temp_dir("components_hdf5")) / "p.hdf5";
  SnapshotMeta meta;
  write_particle_file(file, ParticleFormat::hdf5, p, meta);
  expect_same_set(read_particle_file(file).particles, p, true);
  // Converted to CSV (nbody convert's path) the components stay; to Tipsy they are lost.
  const fs::path csv = file.parent_path() / "p.csv";
  write_particle_file(csv, ParticleFormat::csv, read_particle_file(file).particles, meta);
  expect_same_set(read_particle_file(csv).particles, p, true);
  const fs::path tipsy = file.parent_path() / "p.tipsy";
  write_particle_file(tipsy, ParticleFormat::tipsy, p, meta);
  const Particles<double> t = read_particle_file(tipsy).particles;
  EXPECT_TRUE(t.component_names.empty());
  EXPECT_EQ(t.component, std::vector<std::uint8_t>(p.size(), 0));
}

#if NBODY_HAVE_HDF5
// Overwrites value k of a one-column dataset (converted from `mem_type`).
void poke(const fs::path& file, const char* dataset, hsize_t k, hid_t mem_type, const void* value) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t set = H5Dopen2(f, dataset, H5P_DEFAULT);
  const hid_t space = H5Dget_space(set);
  const hsize_t one = 1;
  H5Sselect_hyperslab(space, H5S_SELECT_SET, &k, nullptr, &one, nullptr);
  const hid_t memory = H5Screate_simple(1, &one, nullptr);
  ASSERT_GE(H5Dwrite(set, mem_type, memory, space, H5P_DEFAULT, value), 0);
  H5Sclose(memory);
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(f);
}

std::string read_error(const fs::path& file) {
  try {
    (void)read_particle_file(file);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Components, Hdf5BadComponentsAndGadgetTypesWithoutNames) {
  const fs::path dir = temp_dir("components_hdf5_bad");
  const Particles<double> p = collision(90);
  const fs::path file = dir / "p.hdf5";
  write_particle_file(file, ParticleFormat::hdf5, p, SnapshotMeta{});
  // 90 bodies: 45 a galaxy, disk 7 and bulge 2 each (llround(6.75), llround(2.25)).
  const std::uint8_t bad_tag = 9;
  poke(file, "/PartType2/Component", 0, H5T_NATIVE_UINT8, &bad_tag);
  EXPECT_NE(read_error(file).find("p.hdf5: PartType2 record 1: component 9 has no name (the file names 6)"),
            std::string::npos)
      << read_error(file);
  write_particle_file(file, ParticleFormat::hdf5, p, SnapshotMeta{});
  const std::uint64_t twice = 5;
  poke(file, "/PartType3/BodyIndex", 0, H5T_NATIVE_UINT64, &twice);
  EXPECT_NE(read_error(file).find("p.hdf5: the PartType groups' BodyIndex values are not each of 0 .. 89 once"),
            std::string::npos)
      << read_error(file);

  // A GADGET file of several types and no names: one component per type, in type order.
  write_particle_file(file, ParticleFormat::hdf5, p, SnapshotMeta{});
  {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t header = H5Gopen2(f, "Header", H5P_DEFAULT);
    ASSERT_GE(H5Adelete(header, "ComponentNames"), 0);
    H5Gclose(header);
    H5Fclose(f);
  }
  const Particles<double> g = read_particle_file(file).particles;
  EXPECT_EQ(g.component_names, (std::vector<std::string>{"PartType1", "PartType2", "PartType3"}));
  EXPECT_EQ(g.id, p.id);  // BodyIndex still restores the order
  for (std::size_t i = 0; i < g.size(); ++i) {
    const std::uint8_t kind = p.component[i] % 3;  // disk 0, bulge 1, halo 2
    ASSERT_EQ(g.component[i], kind == 2 ? 0 : kind == 0 ? 1 : 2) << i;
  }
}
#endif  // NBODY_HAVE_HDF5

}  // namespace
}  // namespace nbody::test
