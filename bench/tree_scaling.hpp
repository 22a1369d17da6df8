#pragma once
// The tree-scaling suite's record fields and report pieces (bench/tree_scaling.cpp,
// bench/tree_scaling_report.cpp; docs/parallel.md, "Measuring the tree over ranks").
#include <array>
#include <cstdint>
#include <sstream>
#include <string>

namespace nbody {
class JsonWriter;
}

namespace nbody::bench {

// What every record of a run shares.
struct TreeScalingSetup {
  std::string model = "plummer";
  std::uint64_t seed = 5;
  double theta = 0.5;
  double softening = 0.01;  // Plummer
  int leaf = 16, group = 64;
  double dt = 1.0 / 256;
  int warm = 2, timed = 5;  // steps
  int samples = 1024;       // bodies of the force error
};

// The phases of a step, in order (docs/parallel.md): decomposition (the bodies to the ranks the
// previous pass's tree gave them, comm::migrate), the top tree (cube, keys, counting rounds,
// owners), the tree's move (bodies to their units' ranks, results back), the exchange (groups,
// the locally essential tree's queries and answers), build, multipoles, walk, integration (the
// leapfrog's kicks and drift), other (the rest of the step: the pass's copies of the bodies in
// and of the results out, the history's check), the whole step.
inline constexpr std::array<const char*, 10> kTreeScalingPhases = {
    "decomposition", "top_tree", "tree_move", "exchange", "build", "multipoles", "walk", "integration", "other", "step"};

// A tree-scaling record's fields (suite "tree-scaling"; rung weak-k or strong-k). Times: the
// slowest rank's, median over the timed steps, in seconds; maxima over the ranks of the last step.
struct TreeScalingFields {
  TreeScalingSetup setup;
  std::string device;  // "cpu" (a GPU tree over owned bodies: "cuda")
  int threads = 0;     // OpenMP threads a rank
  double bodies_per_rank = 0;
  std::array<double, kTreeScalingPhases.size()> phase_s{};
  double rate_per_rank = 0;  // bodies x steps / s / ranks
  double bytes_sent_max = 0, bytes_sent_total = 0;  // the tree pass's, to other ranks
  double let_bytes_sent_max = 0;                    // of which the locally essential tree's
  double migrated_bodies_max = 0, migration_bytes_max = 0;  // the step's migration
  double peak_bodies_max = 0, peak_cells_max = 0, remote_bodies_max = 0;
  double terms_per_body = 0;  // M2P + P2P
  double work_imbalance = 1;  // the most terms on a rank over the mean
  int samples = 0;
  double err_p50 = -1, err_p90 = -1, err_p99 = -1, err_max = -1;  // |a - a_direct| / |a_direct|
  bool compared_with_one_rank = false, same_bits_as_one_rank = false;  // strong, k > 1
};

struct Record;
// The record's line of the table.
[[nodiscard]] std::string tree_scaling_row(const Record& r);
// Its JSON fields (inside the record's object).
void write_tree_scaling_fields(JsonWriter& j, const Record& r);
// Its CSV columns: the header's names (each with a leading comma) and a record's values (empty
// where the record is not a timed tree-scaling one).
[[nodiscard]] std::string tree_scaling_csv_header();
void write_tree_scaling_csv(std::ostringstream& os, const Record& r);

}  // namespace nbody::bench
