// The tree-scaling suite's report pieces (bench/tree_scaling_report.cpp): its CSV columns line up
// with the header whatever other suites share the file, and its JSON carries the phases, the
// bytes, the peaks and the force errors of a timed record, and only the errors of a failed one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench.hpp"

namespace nbody::bench {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Fields of a CSV line (quoted fields may hold commas).
std::size_t csv_fields(const std::string& line) {
  std::size_t n = 1;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++n;
  }
  return n;
}

Record tree_scaling_record(bool timed) {
  Record r;
  r.suite = "tree-scaling";
  r.rung = "strong-2";
  r.precision = "fp64";
  r.n = 4096;
  r.ranks = 2;
  r.shape = "cpu, 1 thread a rank";
  r.verified = timed;
  TreeScalingFields& t = r.tree_scaling;
  t.device = "cpu";
  t.threads = 1;
  t.bodies_per_rank = 2048;
  for (std::size_t q = 0; q < t.phase_s.size(); ++q) t.phase_s[q] = 0.001 * double(q + 1);
  t.bytes_sent_max = 12345;
  t.peak_cells_max = 678;
  t.samples = 64;
  t.err_p50 = 1e-4, t.err_p90 = 2e-4, t.err_p99 = 3e-4, t.err_max = 4e-4;
  t.compared_with_one_rank = true;
  t.same_bits_as_one_rank = timed;
  if (timed) {
    r.steps = 1, r.repeats = 3, r.median_s = 0.01, r.mean_s = 0.011, r.min_s = 0.009;
    r.efficiency = 0.8, r.speedup_vs_one_rank = 1.6;
  } else {
    r.error = "forces WRONG: the sampled accelerations DIFFER from the 1-rank record's";
  }
  return r;
}

Report mixed_report() {
  Report rep;
  Record ladder;
  ladder.suite = "ladder";
  ladder.rung = "cpu";
  ladder.shape = "a, b";
  rep.records = {ladder, tree_scaling_record(true), tree_scaling_record(false)};
  return rep;
}

TEST(TreeScalingReport, CsvRowsHaveTheHeadersColumns) {
  const auto path = std::filesystem::temp_directory_path() / "nbody_tree_scaling_report.csv";
  write_csv(mixed_report(), path.string());
  std::istringstream in(read(path));
  std::string header, line;
  std::getline(in, header);
  EXPECT_NE(header.find(",decomposition_s,top_tree_s,tree_move_s,exchange_s,build_s,multipoles_s,walk_s,"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find(",force_error_p99,"), std::string::npos);
  int rows = 0;
  while (std::getline(in, line)) {
    EXPECT_EQ(csv_fields(line), csv_fields(header)) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 3);
  std::filesystem::remove(path);
}

TEST(TreeScalingReport, JsonHasPhasesBytesPeaksAndErrors) {
  const auto path = std::filesystem::temp_directory_path() / "nbody_tree_scaling_report.json";
  Report rep = mixed_report();
  rep.records.erase(rep.records.begin());
  write_json(rep, path.string());
  const std::string j = read(path);
  const auto failed = j.find("\"rung\": \"strong-2\"", j.find("\"rung\": \"strong-2\"") + 1);
  ASSERT_NE(failed, std::string::npos);
  const std::string timed = j.substr(0, failed), wrong = j.substr(failed);
  for (const char* f : {"\"phase_median_s\"", "\"decomposition\": 0.001", "\"step\": 0.01", "\"bytes_sent_max\": 12345",
                        "\"peak_cells_max\": 678", "\"force_error_p99\": 0.0003", "\"same_bits_as_one_rank\": true",
                        "\"device\": \"cpu\"", "\"threads_per_rank\": 1", "\"efficiency\": 0.8"}) {
    EXPECT_NE(timed.find(f), std::string::npos) << f;
  }
  EXPECT_EQ(wrong.find("\"phase_median_s\""), std::string::npos);
  EXPECT_NE(wrong.find("\"force_error_p99\": 0.0003"), std::string::npos);
  EXPECT_NE(wrong.find("\"same_bits_as_one_rank\": false"), std::string::npos);
  EXPECT_NE(wrong.find("forces WRONG"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(TreeScalingReport, TheLineSaysThePhasesAndTheErrors) {
  const std::string line = tree_scaling_row(tree_scaling_record(true));
  EXPECT_NE(line.find("walk 7"), std::string::npos) << line;
  EXPECT_NE(line.find("p99 0.0003"), std::string::npos) << line;
  EXPECT_NE(line.find("efficiency 80.0%"), std::string::npos) << line;
  EXPECT_NE(tree_scaling_row(tree_scaling_record(false)).find("ERROR: forces WRONG"), std::string::npos);
}

}  // namespace
}  // namespace nbody::bench
