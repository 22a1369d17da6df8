// nbody bench: the optimization study as a benchmark (see bench/bench.hpp).
#include <cstdio>
#include <memory>
#include <sstream>

#include <algorithm>

#include "bench.hpp"
#include "ladder/rung.hpp"
#include "cli/commands.hpp"
#include "comm/communicator.hpp"
#include "nbody/error.hpp"

namespace nbody::cli {
namespace {

struct BenchArgs {
  std::string suites = "ladder";
  std::int64_t n = 4096;
  std::string precisions = "fp32";
  std::string rungs;
  std::int64_t max_n = 4194304;
  bool quick = false;
  std::string json, csv;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

Command add_bench_command(CLI::App& parent, const std::string& command_line) {
  auto* app = parent.add_subcommand(
      "bench",
      "Benchmark the optimization ladder of the source documents and the production kernels: every "
      "configuration verified against the float64 reference before it is timed");
  auto args = std::make_shared<BenchArgs>();
  app->add_option("--suite", args->suites,
                  "comma-separated: ladder, blocksize, scaling, tune (includes tune-program), tune-program, precision, "
                  "profile, multi-gpu (the direct sum over 1..K GPUs: run under mpirun -np K), pic (document 004's "
                  "PIC deposition techniques and sorting policy on its setup) (default: ladder)");
  app->add_option("-n,--n", args->n, "bodies for ladder, blocksize and profile (default: 4096)");
  app->add_option("--precision", args->precisions, "ladder precisions, comma-separated: fp32, fp64, mixed (default: fp32)");
  app->add_option("--max-n", args->max_n, "largest N of the scaling and tune suites (default: 4194304)");
  app->add_option("--rungs", args->rungs,
                  "comma-separated: only these rungs (cpu-serial, cpu, gpu-naive, gpu-shared, gpu-split, "
                  "gpu-split-unrolled, gpu-best; pic: cas, atomic, float32, tiled, deterministic, separate, redundant, "
                  "sorting; default: all)");
  app->add_flag("--quick", args->quick, "fewer repeats and sizes: a smoke test");
  app->add_option("--json", args->json, "write every result and the environment as JSON");
  app->add_option("--csv", args->csv, "write every result as CSV");

  return {app, [args, command_line]() {
            bench::Options o;
            o.suites = split_list(args->suites);
            if (o.suites.empty()) throw_input_error("--suite: no suite named");
            for (const auto& s : o.suites) {
              if (s != "ladder" && s != "blocksize" && s != "scaling" && s != "tune" && s != "tune-program" &&
                  s != "precision" && s != "profile" && s != "multi-gpu" && s != "pic") {
                throw_input_error("--suite: unknown suite '" + s +
                                  "' (choose from ladder, blocksize, scaling, tune, tune-program, precision, profile, multi-gpu, pic)");
              }
            }
            if (args->n < 2 || args->n > 16777216) throw_input_error("--n: must be in [2, 16777216] (got " + std::to_string(args->n) + ")");
            if (args->max_n < 1024) throw_input_error("--max-n: must be >= 1024 (got " + std::to_string(args->max_n) + ")");
            o.n = args->n;
            o.max_n = args->max_n;
            o.quick = args->quick;
            for (const auto& p : split_list(args->precisions)) o.precisions.push_back(parse_precision(p, "--precision"));
            if (o.precisions.empty()) throw_input_error("--precision: none named");
            o.rungs = split_list(args->rungs);
            auto known = bench::ladder_rung_names();
            for (const char* r : {"cas", "atomic", "float32", "tiled", "deterministic", "separate", "redundant", "sorting"})
              known.emplace_back(r);
            for (const auto& r : o.rungs) {
              if (std::find(known.begin(), known.end(), r) == known.end()) {
                throw_input_error("--rungs: unknown rung '" + r + "'");
              }
            }
            o.json_path = args->json;
            o.csv_path = args->csv;
            o.command_line = command_line;
            // Under mpirun every rank measures; rank 0 alone prints and writes the results.
            if (comm::world().rank() != 0) {
              if (std::freopen("/dev/null", "w", stdout) == nullptr) throw_runtime_error("bench: cannot silence rank " + std::to_string(comm::world().rank()));
              o.json_path.clear();
              o.csv_path.clear();
            }
            const bench::Report rep = bench::run(o);
            if (!o.json_path.empty()) bench::write_json(rep, o.json_path);
            if (!o.csv_path.empty()) bench::write_csv(rep, o.csv_path);
            if (!o.json_path.empty()) std::printf("results: %s\n", o.json_path.c_str());
            // Wrong results make the run fail. A launch the GPU refuses (the 1025-thread block of
            // the block-size sweep) is a reported outcome, not a failure of the benchmark.
            int wrong = 0;
            for (const auto& r : rep.records) wrong += r.error.rfind("positions WRONG", 0) == 0 || r.error.rfind("forces WRONG", 0) == 0;
            if (wrong > 0) std::fprintf(stderr, "nbody: error: %d configuration(s) computed wrong results\n", wrong);
            return wrong > 0 ? 1 : 0;
          }};
}

}  // namespace nbody::cli
