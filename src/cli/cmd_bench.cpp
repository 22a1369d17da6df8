// nbody bench: the optimization study as a benchmark (see bench/bench.hpp).
#include <cstdio>
#include <memory>
#include <sstream>
#include <tuple>

#include <algorithm>

#include <cmath>
#include <cstdlib>

#include "bench.hpp"
#include "ensemble/backend.hpp"
#include "ic/ic.hpp"
#include "tree_measure.hpp"
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
  std::int64_t min_n = 0;
  bool quick = false;
  std::string json, csv;
  std::string tree_n, tree_models, tree_theta;
  int tree_samples = 0;
  double tree_softening = 0.01;
  double tree_budget = 400;
  int tree_leaf = 16;
  int tree_group = 64;
  std::string tree_bodies_per_rank, tree_bodies;
  int pic_ny = 0;
  int pic_steps = 0;
  std::string pic_deposit = "atomic";
  std::string pic_exchange = "host";
  std::string pic_precision = "float64";
  std::string ensemble_sizes, ensemble_counts;
  std::int64_t ensemble_max_bodies = std::int64_t(1) << 28;
  std::int64_t ensemble_cpu_max_bodies = std::int64_t(1) << 18;
  std::string ensemble_shape;
  int ensemble_block_bodies = 0;
  std::string ensemble_scatterings;
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
                  "PIC deposition techniques and sorting policy on its setup), tree (the Barnes-Hut tree: force errors "
                  "and phase times over N, models and theta; docs/tree.md), tree-scaling (the tree over rank-owned bodies "
                  "stepping a model on 1, 2, 4, ..., P ranks, weak and strong: phase times, bytes, peaks, force errors; run "
                  "under mpirun -np P; docs/parallel.md), pic-scaling (the PIC slabs over 1, 2, 4, ..., P ranks, "
                  "strong and weak, a moving target, slabs against 2D blocks, the sorting policies: run under mpirun -np P; "
                  "docs/pic_optimization.md), render (what a frame of a run costs beside a tree step: the 10^7-body galaxy "
                  "collision, capped by --max-n; docs/pictures.md), hermite (4th-order Hermite block steps against shared steps and leapfrog on "
                  "Plummer spheres, N = 2^12 .. --max-n (at most 2^20): time per time unit, energy error, active sets, "
                  "interaction rates; docs/collisional.md), ensemble (many small systems: system-steps/s batched on "
                  "the GPU, one at a time on the GPU and on the CPU over sizes and counts; docs/ensembles.md) "
                  "(default: ladder)");
  app->add_option("-n,--n", args->n, "bodies for ladder, blocksize and profile (default: 4096)");
  CLI::Option* precision_option = app->add_option(
      "--precision", args->precisions,
      "comma-separated: fp32, fp64, mixed: the ladder's and profile's precisions (default: fp32); multi-gpu: "
      "only these of fp32, fp64 (default: both)");
  app->add_option("--max-n", args->max_n, "largest N of the scaling, tune and hermite suites (default: 4194304; hermite: at most 1048576)");
  app->add_option("--min-n", args->min_n,
                  "smallest N of the multi-gpu suite's strong scaling, doubled up to --max-n (default: 262144)");
  app->add_option("--rungs", args->rungs,
                  "comma-separated: only these rungs (cpu-serial, cpu, gpu-naive, gpu-shared, gpu-split, "
                  "gpu-split-unrolled, gpu-best; pic: cas, separate, atomic, redundant, float32, tiled, warp, "
                  "deterministic, and the sorting records: sorting, tiled-sorting, warp-sorting; pic-scaling: strong, "
                  "strong-balanced, weak, moving-target, blocks, sorting, sorting-multi (the sorting records on 2 and "
                  "P ranks only), transfer; default: all)");
  app->add_flag("--quick", args->quick, "fewer repeats and sizes: a smoke test");
  app->add_option("--tree-n", args->tree_n,
                  "tree: comma-separated body counts (1e6 and 2^20 forms too; default on a GPU: "
                  "1e4,3e4,1e5,2^20,2^24,1e8; on the CPU: 4096,16384)");
  app->add_option("--tree-models", args->tree_models,
                  "tree: comma-separated initial conditions (default: cube,plummer,hernquist,disk-galaxy)");
  app->add_option("--tree-theta", args->tree_theta,
                  "tree: comma-separated opening angles for every N (default: 0.3..0.9 by 0.1, fewer at large N)");
  app->add_option("--tree-samples", args->tree_samples,
                  "tree: targets of the float64 reference sum (default: 4096, 2048 above 2^21, 1024 above 2^25)");
  app->add_option("--tree-softening", args->tree_softening, "tree: Plummer softening length (default: 0.01)");
  app->add_option("--tree-budget", args->tree_budget,
                  "tree: no model and N is started that would end (by the estimate from the last N) after this many seconds (default: 400)");
  app->add_option("--tree-leaf", args->tree_leaf, "tree: bodies a leaf holds at most (default: 16)");
  app->add_option("--tree-group", args->tree_group, "tree: targets a group of the walk holds at most, 1..64 (default: 64)");
  app->add_option("--tree-bodies-per-rank", args->tree_bodies_per_rank,
                  "tree-scaling: bodies a rank of the weak records (2^15 forms too; default: 2^15; --quick: 2^11)");
  app->add_option("--tree-bodies", args->tree_bodies,
                  "tree-scaling: bodies of the strong records (default: 2^17; --quick: 2^13); tree-scaling also takes "
                  "--tree-models (the first: plummer or hernquist), --tree-theta (the first), --tree-softening, "
                  "--tree-leaf, --tree-group, --tree-samples and --rungs weak,strong");
  app->add_option("--pic-ny", args->pic_ny,
                  "pic-scaling: grid rows (default: 800 on GPUs, the document's; 100 on the CPU; --quick: 8)");
  app->add_option("--pic-steps", args->pic_steps,
                  "pic-scaling: timed steps of each record but the sorting and transfer ones, after 3 warm-up "
                  "steps (default: 10; --quick: 3)");
  app->add_option("--pic-deposit", args->pic_deposit,
                  "pic-scaling on GPUs: the slabs' deposition, atomic or warp (default: atomic; the CPU slabs are deterministic)");
  app->add_option("--pic-precision", args->pic_precision,
                  "pic: the GPU particle store of every rung, float64 or float32 (solver.particle_precision; records' "
                  "precision p32), or float32-currents (the float32 store and the warp kernel's window currents in "
                  "float32 arithmetic; p32c) (default: float64)");
  app->add_option("--pic-exchange", args->pic_exchange,
                  "pic-scaling on GPUs: the guard messages, host (staged through the host) or ipc (GPU to GPU, CUDA IPC; "
                  "every rank on one node) (default: host)");
  app->add_option("--ensemble-sizes", args->ensemble_sizes,
                  "ensemble: comma-separated bodies a system, 2..1024 (default: 3,4,8,16,32,64,128,256,512,1024; --quick: 3,16,64)");
  app->add_option("--ensemble-counts", args->ensemble_counts,
                  "ensemble: comma-separated numbers of systems (1e6 forms too; default: 1e2..1e7 by 10x; --quick: 100,1000)");
  app->add_option("--ensemble-max-bodies", args->ensemble_max_bodies,
                  "ensemble: a batched record with more bodies in all is skipped (default: 2^28)");
  app->add_option("--ensemble-cpu-max-bodies", args->ensemble_cpu_max_bodies,
                  "ensemble: the CPU records step at most this many bodies (the first systems; default: 2^18)");
  app->add_option("--ensemble-shape", args->ensemble_shape,
                  "ensemble: comma-separated GPU shapes, a batched record each: auto (= group: a group of lanes a "
                  "system up to 32 bodies, a warp, a block from 192), warp (no groups), block (default: auto)");
  app->add_option("--ensemble-scatterings", args->ensemble_scatterings,
                  "ensemble: also time this many three-body scatterings (the scattering example) to their ends with "
                  "hermite4_adaptive and hermite4_symmetric, the worst |dE/E| reported (the CPU: at most 256; "
                  "default: none)");
  app->add_option("--ensemble-block-bodies", args->ensemble_block_bodies,
                  "ensemble: a block a system from this many bodies, 2..1024 (default: 128; not for the block shape)");
  app->add_option("--json", args->json, "write every result and the environment as JSON");
  app->add_option("--csv", args->csv, "write every result as CSV");

  return {app, [args, command_line, precision_option]() {
            bench::Options o;
            o.suites = split_list(args->suites);
            if (o.suites.empty()) throw_input_error("--suite: no suite named");
            for (const auto& s : o.suites) {
              const auto& names = bench::suite_names();
              if (std::find(names.begin(), names.end(), s) == names.end()) {
                std::string known;
                for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
                throw_input_error("--suite: unknown suite '" + s + "' (choose from " + known + ")");
              }
            }
            if (args->n < 2 || args->n > 16777216) throw_input_error("--n: must be in [2, 16777216] (got " + std::to_string(args->n) + ")");
            if (args->max_n < 1024) throw_input_error("--max-n: must be >= 1024 (got " + std::to_string(args->max_n) + ")");
            o.n = args->n;
            o.max_n = args->max_n;
            if (args->min_n != 0 && (args->min_n < 1024 || args->min_n > args->max_n))
              throw_input_error("--min-n: must be in [1024, --max-n = " + std::to_string(args->max_n) + "] (got " +
                                std::to_string(args->min_n) + ")");
            o.min_n = args->min_n;
            o.quick = args->quick;
            for (const auto& p : split_list(args->precisions)) o.precisions.push_back(parse_precision(p, "--precision"));
            if (o.precisions.empty()) throw_input_error("--precision: none named");
            o.precisions_named = precision_option->count() > 0;
            const bool multi = std::find(o.suites.begin(), o.suites.end(), "multi-gpu") != o.suites.end();
            if (multi && o.precisions_named &&
                std::find(o.precisions.begin(), o.precisions.end(), Precision::mixed) != o.precisions.end())
              throw_input_error("--precision: the multi-gpu suite measures fp32 and fp64 (not mixed)");
            o.rungs = split_list(args->rungs);
            auto known = bench::ladder_rung_names();
            for (auto& r : bench::pic_rung_names()) known.push_back(std::move(r));
            for (auto& r : bench::pic_scaling_groups()) known.push_back(std::move(r));
            for (const auto& r : o.rungs) {
              if (std::find(known.begin(), known.end(), r) == known.end()) {
                throw_input_error("--rungs: unknown rung '" + r + "'");
              }
            }
            for (const auto& t : split_list(args->tree_n)) {
              std::int64_t v = 0;
              if (!bench::treebench::parse_body_count(t, v) || v < 2)
                throw_input_error("--tree-n: '" + t + "' is not a body count in [2, 2^31)");
              o.tree_n.push_back(v);
            }
            for (const auto& t : split_list(args->ensemble_sizes)) {
              std::int64_t v = 0;
              if (!bench::treebench::parse_body_count(t, v) || v < 2 || v > 1024)
                throw_input_error("--ensemble-sizes: '" + t + "' is not a system size in [2, 1024]");
              o.ensemble_sizes.push_back(int(v));
            }
            for (const auto& t : split_list(args->ensemble_counts)) {
              std::int64_t v = 0;
              if (!bench::treebench::parse_body_count(t, v) || v < 1)
                throw_input_error("--ensemble-counts: '" + t + "' is not a number of systems in [1, 2^31)");
              o.ensemble_counts.push_back(v);
            }
            if (args->ensemble_max_bodies < 1 || args->ensemble_cpu_max_bodies < 1)
              throw_input_error("--ensemble-max-bodies, --ensemble-cpu-max-bodies: must be >= 1");
            o.ensemble_max_bodies = args->ensemble_max_bodies;
            for (const auto& t : split_list(args->ensemble_shape)) {
              ensemble::GpuShape shape;
              if (!ensemble::gpu_shape_named(t, shape))
                throw_input_error("--ensemble-shape: '" + t + "' is not a shape (auto, group, warp, block)");
              o.ensemble_shapes.push_back(t);
            }
            if (args->ensemble_block_bodies != 0 && (args->ensemble_block_bodies < 2 || args->ensemble_block_bodies > 1024))
              throw_input_error("--ensemble-block-bodies: " + std::to_string(args->ensemble_block_bodies) +
                                " is not a system size in [2, 1024]");
            o.ensemble_block_bodies = args->ensemble_block_bodies;
            if (!args->ensemble_scatterings.empty() &&
                (!bench::treebench::parse_body_count(args->ensemble_scatterings, o.ensemble_scatterings) ||
                 o.ensemble_scatterings < 1))
              throw_input_error("--ensemble-scatterings: '" + args->ensemble_scatterings +
                                "' is not a number of systems in [1, 2^31)");
            o.ensemble_cpu_max_bodies = args->ensemble_cpu_max_bodies;
            o.tree_models = split_list(args->tree_models);
            for (const auto& m : o.tree_models) (void)find_initial_conditions(m);
            const bool tree_scaling = std::find(o.suites.begin(), o.suites.end(), "tree-scaling") != o.suites.end();
            if (tree_scaling && !o.tree_models.empty() && o.tree_models.front() != "plummer" &&
                o.tree_models.front() != "hernquist")
              throw_input_error("--tree-models: the tree-scaling suite draws plummer or hernquist (got '" +
                                o.tree_models.front() + "')");
            for (const auto& [text, out, name] :
                 {std::tuple{&args->tree_bodies_per_rank, &o.tree_bodies_per_rank, "--tree-bodies-per-rank"},
                  std::tuple{&args->tree_bodies, &o.tree_bodies, "--tree-bodies"}}) {
              if (text->empty()) continue;
              if (!bench::treebench::parse_body_count(*text, *out) || *out < 2)
                throw_input_error(std::string(name) + ": '" + *text + "' is not a body count in [2, 2^31)");
            }
            for (const auto& t : split_list(args->tree_theta)) {
              char* end = nullptr;
              const double v = std::strtod(t.c_str(), &end);
              if (*end != '\0' || !(v > 0 && v <= 1.5))
                throw_input_error("--tree-theta: '" + t + "' is not an opening angle in (0, 1.5]");
              o.tree_theta.push_back(v);
            }
            if (args->tree_samples < 0) throw_input_error("--tree-samples: must be >= 0 (0: by N; got " + std::to_string(args->tree_samples) + ")");
            if (!(args->tree_softening >= 0) || !std::isfinite(args->tree_softening))
              throw_input_error("--tree-softening: must be a finite length >= 0");
            if (!(args->tree_budget > 0)) throw_input_error("--tree-budget: must be > 0 seconds");
            o.tree_samples = args->tree_samples;
            o.tree_softening = args->tree_softening;
            o.tree_budget_s = args->tree_budget;
            if (args->tree_leaf < 1 || args->tree_leaf > 1024)
              throw_input_error("--tree-leaf: must be in [1, 1024] (got " + std::to_string(args->tree_leaf) + ")");
            if (args->tree_group < 1 || args->tree_group > 64)
              throw_input_error("--tree-group: must be in [1, 64] (got " + std::to_string(args->tree_group) + ")");
            o.tree_leaf = args->tree_leaf;
            o.tree_group = args->tree_group;
            if (args->pic_ny < 0 || args->pic_ny > 100000)
              throw_input_error("--pic-ny: must be in [0, 100000], 0 for the suite's default (got " + std::to_string(args->pic_ny) + ")");
            o.pic_ny = args->pic_ny;
            if (args->pic_steps < 0 || args->pic_steps > 100000)
              throw_input_error("--pic-steps: must be in [0, 100000], 0 for the suite's default (got " +
                                std::to_string(args->pic_steps) + ")");
            o.pic_steps = args->pic_steps;
            if (args->pic_deposit != "atomic" && args->pic_deposit != "warp")
              throw_input_error("--pic-deposit: must be atomic or warp (got '" + args->pic_deposit + "')");
            o.pic_deposit = args->pic_deposit;
            if (args->pic_exchange != "host" && args->pic_exchange != "ipc")
              throw_input_error("--pic-exchange: must be host or ipc (got '" + args->pic_exchange + "')");
            o.pic_exchange = args->pic_exchange;
            if (args->pic_precision != "float64" && args->pic_precision != "float32" &&
                args->pic_precision != "float32-currents")
              throw_input_error("--pic-precision: must be float64, float32 or float32-currents (got '" +
                                args->pic_precision + "')");
            o.pic_precision = args->pic_precision;
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
            for (const auto& r : rep.records) wrong += r.error.rfind("positions WRONG", 0) == 0 || r.error.rfind("forces WRONG", 0) == 0 ||
                       r.error.rfind("pic WRONG", 0) == 0;
            if (wrong > 0) std::fprintf(stderr, "nbody: error: %d configuration(s) computed wrong results\n", wrong);
            return wrong > 0 ? 1 : 0;
          }};
}

}  // namespace nbody::cli
