#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "io/atomic_file.hpp"
#include "core/json_writer.hpp"
#include "core/strings.hpp"

namespace nbody::bench {

double issue_ceiling(Precision p, int sm_count, double sm_clock_mhz) noexcept {
  // fp64 counts the conventional 17 FP64 instructions a pair (12 + a five-instruction rsqrt
  // refinement); the production kernel's fused m/r^3 needs 16, so it can pass 100%.
  const double lanes_per_pair = p == Precision::fp64 ? 64.0 / 17.0 : 128.0 / 13.0;
  return double(sm_count) * lanes_per_pair * sm_clock_mhz * 1e6 / 1e9;
}

std::string table_header() {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-10s %-19s %-5s %9s %-24s %12s %12s %10s %9s %9s  %s", "suite", "rung", "prec",
                "n", "shape", "median ms", "mean ms", "Ginter/s", "x serial", "x prev", "verified / note");
  return buf;
}

namespace {

// A tree-suite record's line: what it measured, in its own words.
std::string tree_row(const Record& r) {
  const TreeFields& t = r.tree;
  char head[160];
  std::snprintf(head, sizeof head, "%-10s %-11s %-5s %10lld %-11s", r.suite.c_str(), r.rung.c_str(), r.precision.c_str(),
                static_cast<long long>(r.n), t.model.c_str());
  std::string line = head;
  if (r.rung == "crossover") return line + "  " + (r.skipped.empty() ? r.verification : r.skipped);
  if (!r.skipped.empty()) return line + "  " + r.skipped;
  if (!r.error.empty()) return line + "  ERROR: " + r.error;
  char body[400];
  if (r.rung.rfind("direct", 0) == 0) {
    std::snprintf(body, sizeof body, " force %.4g ms, %.4g M particles/s, %.4g Ginter/s; p50 %.2g p99 %.2g  %s",
                  t.force_s * 1e3, double(r.n) / t.force_s / 1e6, r.rate, t.err_p50, t.err_p99, r.shape.c_str());
    return line + body;
  }
  std::snprintf(body, sizeof body,
                " theta %.2g: p50 %.2g p90 %.2g p99 %.2g max %.2g | step %.4g ms (keys %.3g sort %.3g build %.3g "
                "mult %.3g walk %.4g kd %.3g) | walk %.4g M/s, step %.4g M/s | %.0f+%.0f terms/body",
                t.theta, t.err_p50, t.err_p90, t.err_p99, t.err_max, t.step_s * 1e3, t.keys_s * 1e3, t.sort_s * 1e3,
                t.build_s * 1e3, t.multipoles_s * 1e3, t.walk_s * 1e3, t.kick_drift_s * 1e3,
                double(r.n) / t.walk_s / 1e6, double(r.n) / t.step_s / 1e6, t.m2p_per_particle, t.p2p_per_particle);
  line += body;
  if (t.device_bytes_per_body > 0) {
    std::snprintf(body, sizeof body, " | %.0f B/body", t.device_bytes_per_body);
    line += body;
  }
  if (!t.same_bits) line += " | BITS DIFFER between passes";
  return line;
}

// A hermite-suite record's line.
std::string hermite_row(const Record& r) {
  const HermiteBenchFields& h = r.hermite;
  char head[200];
  std::snprintf(head, sizeof head, "%-8s %-11s %8lld %-4s eps %-9.3g %s %-8.3g", r.suite.c_str(), r.rung.c_str(),
                static_cast<long long>(r.n), r.shape.c_str(), h.softening, r.rung == "leapfrog" ? "dt " : "eta",
                h.eta);
  std::string line = head;
  if (!r.skipped.empty()) return line + "  " + r.skipped;
  if (!r.error.empty()) return line + "  ERROR: " + r.error;
  char body[300];
  if (r.rung == "all-pairs") {
    std::snprintf(body, sizeof body, "%-8s %-11s %8lld %-4s acc+jerk pass of all N %.4g ms, %.4g Ginter/s",
                  r.suite.c_str(), r.rung.c_str(), static_cast<long long>(r.n), r.shape.c_str(), r.median_s * 1e3, r.rate);
    return body;
  }
  if (r.rung == "pass" || r.rung == "pass-mixed") {
    std::snprintf(body, sizeof body,
                  "%-8s %-11s %8lld %-4s counted pass of %7.0f active %.4g ms, %.4g Ginter/s (%.1f%% of all-pairs)",
                  r.suite.c_str(), r.rung.c_str(), static_cast<long long>(r.n), r.shape.c_str(), h.mean_active,
                  r.median_s * 1e3, r.rate, h.all_pairs_rate > 0 ? 100 * r.rate / h.all_pairs_rate : 0.0);
    return body;
  }
  std::snprintf(body, sizeof body,
                " %.4g s per time unit, |dE/E| %.2e, %llu block steps, mean active %.1f, %.4g Ginter/s (%.1f%% of "
                "all-pairs)",
                h.wall_per_time_unit_s, h.energy_error, static_cast<unsigned long long>(h.block_steps), h.mean_active,
                h.effective_rate, h.all_pairs_rate > 0 ? 100 * h.effective_rate / h.all_pairs_rate : 0.0);
  return line + body;
}

}  // namespace

std::string table_row(const Record& r) {
  if (r.suite == "tree") return tree_row(r);
  if (r.suite == "hermite") return hermite_row(r);
  if (r.suite == "tree-scaling") return tree_scaling_row(r);
  char head[160];
  std::snprintf(head, sizeof head, "%-10s %-19s %-5s %9lld %-24s", r.suite.c_str(), r.rung.c_str(), r.precision.c_str(),
                static_cast<long long>(r.n), r.shape.substr(0, 24).c_str());
  std::string line = head;
  if (!r.skipped.empty()) return line + "  " + r.skipped;
  if (!r.error.empty()) return line + "  ERROR: " + r.error;
  char body[256];
  auto speedup = [](double v) {
    char b[16];
    if (v > 0) {
      std::snprintf(b, sizeof b, "%9.3g", v);
    } else {
      std::snprintf(b, sizeof b, "%9s", "");
    }
    return std::string(b);
  };
  std::snprintf(body, sizeof body, " %12.5g %12.5g %10.4g %s %s  %s", r.median_s * 1e3, r.mean_s * 1e3, r.rate,
                speedup(r.speedup_vs_serial).c_str(), speedup(r.speedup_vs_previous).c_str(),
                r.verified ? "yes" : "no");
  line += body;
  if (r.fraction_of_ceiling > 0) {
    char f[48];
    std::snprintf(f, sizeof f, ", %.1f%% of issue ceiling", 100 * r.fraction_of_ceiling);
    line += f;
  }
  if (r.suite == "ensemble" && r.timed()) {
    char f[200];
    std::snprintf(f, sizeof f, ", %.4g system-steps/s over %lld systems", r.rate * 1e9,
                  static_cast<long long>(r.ensemble_measured_systems));
    line += f;
    if (r.speedup_vs_cpu > 0) line += format_line(", %.3gx the CPU", r.speedup_vs_cpu);
    if (r.speedup_vs_one > 0) line += format_line(", %.3gx one at a time", r.speedup_vs_one);
    if (!r.verification.empty()) line += " (" + r.verification + ")";
  }
  if (r.suite == "pic-scaling" && r.timed() && r.transfer_bytes > 0) {
    char f[160];
    std::snprintf(f, sizeof f, ", %.0f bytes one way, %.3g GB/s", r.transfer_bytes, r.rate);
    line += f;
    if (r.speedup_vs_host > 0) {
      std::snprintf(f, sizeof f, ", %.3gx host-staged", r.speedup_vs_host);
      line += f;
    }
  } else if (r.suite == "pic-scaling" && r.timed()) {
    char f[240];
    std::string where = r.pic_deposit.empty() ? r.shape : r.shape + ", " + r.pic_deposit;
    if (!r.pic_exchange.empty()) where += ", guards " + r.pic_exchange;
    std::snprintf(f, sizeof f, ", %d rank%s (%s), %.4g ns/particle/step; per step: particles %.4g ms, fields %.4g ms, comm %.4g ms, migration %.4g ms",
                  r.ranks, r.ranks > 1 ? "s" : "", where.c_str(), r.ns_step, r.force_s * 1e3, r.pic_fields_s * 1e3,
                  r.comm_s * 1e3, r.pic_migration_s * 1e3);
    line += f;
    if (r.ranks > 1) {
      std::snprintf(f, sizeof f, " (fastest rank's particles %.4g ms; most particles on a rank %.3g x the mean)",
                    r.particles_fastest_s * 1e3, r.most_particles_share);
      line += f;
    }
    if (r.speedup_vs_one_rank > 0) {
      std::snprintf(f, sizeof f, ", speedup %.3g", r.speedup_vs_one_rank);
      line += f;
    }
    if (r.speedup_vs_even_split > 0) {
      std::snprintf(f, sizeof f, ", %d rebalances, %.3gx the even split", r.rebalances, r.speedup_vs_even_split);
      line += f;
    }
    if (r.rung.rfind("strong-balanced", 0) == 0) {
      std::snprintf(f, sizeof f, ", %d rebalances", r.rebalances);
      line += f;
    }
    if (r.speedup_vs_slabs > 0) {
      std::snprintf(f, sizeof f, ", %.3gx the slabs", r.speedup_vs_slabs);
      line += f;
    }
    if (r.sorts >= 0) {
      std::snprintf(f, sizeof f, ", %lld sorts, mean step %.4g ms", r.sorts, r.mean_s * 1e3);
      line += f;
      if (r.speedup_vs_every_step > 0) {
        std::snprintf(f, sizeof f, " (%.3gx sorting every step)", r.speedup_vs_every_step);
        line += f;
      }
    }
    if (r.efficiency > 0) {
      std::snprintf(f, sizeof f, ", efficiency %.1f%%", 100 * r.efficiency);
      line += f;
    }
  } else if (r.ranks > 0) {
    char f[160];
    std::snprintf(f, sizeof f, ", %d rank%s: force %.4g ms, comm %.4g ms (%.1f%%)", r.ranks, r.ranks > 1 ? "s" : "",
                  r.force_s * 1e3, r.comm_s * 1e3, r.median_s > 0 ? 100 * r.comm_s / r.median_s : 0.0);
    line += f;
    if (r.speedup_vs_one_rank > 0) {
      std::snprintf(f, sizeof f, ", speedup %.3g", r.speedup_vs_one_rank);
      line += f;
    }
    if (r.pipelined_s > 0) {
      std::snprintf(f, sizeof f, ", pipelined (%d pieces) %.4g ms (%.3gx the gather's pass%s)", r.pipelined_chunks,
                    r.pipelined_s * 1e3, r.median_s / r.pipelined_s, r.pipelined_same_bits ? "" : ", BITS DIFFER");
      line += f;
    }
    if (r.efficiency > 0) {
      std::snprintf(f, sizeof f, ", efficiency %.1f%%", 100 * r.efficiency);
      line += f;
    }
  }
  if (r.ns_step > 0 && r.suite != "pic-scaling") {
    char f[200];
    std::snprintf(f, sizeof f, ", %.4g ns/particle/step whole (particle kernels %.4g), %.3g GB", r.ns_step, r.ns_particles,
                  r.device_bytes / 1e9);
    line += f;
    if (r.speedup_vs_baseline > 0) {
      std::snprintf(f, sizeof f, ", x%.3g vs cas", r.speedup_vs_baseline);
      line += f;
    }
    if (r.charge_error >= 0) {
      std::snprintf(f, sizeof f, ", Gauss change %.2g", r.charge_error);
      line += f;
    }
    if (r.sorts >= 0) {
      std::snprintf(f, sizeof f, ", %lld sorts", r.sorts);
      line += f;
    }
  }
  if (r.energy_error > 0) {
    char f[48];
    std::snprintf(f, sizeof f, ", |dE/E0| %.3g", r.energy_error);
    line += f;
  }
  if (r.policy_choice) line += ", policy's choice";
  return line;
}

std::string describe(const Environment& e) {
  std::ostringstream os;
  os << "device: " << e.device;
  if (e.sm_count > 0) {
    os << " (" << e.sm_count << " SMs, rated " << e.sm_clock_rated_mhz << " MHz";
    if (e.sm_clock_measured_mhz > 0) os << ", measured " << e.sm_clock_measured_mhz << " MHz under load";
    os << "), driver " << e.driver << ", CUDA runtime " << e.cuda_runtime;
  }
  os << "\nhost: " << e.host_cpu << ", " << e.host_threads << " threads; nbody " << e.nbody_version << " ("
     << e.git_revision << "), " << e.timestamp;
  return os.str();
}

namespace {

// The hermite suite's fields (bench.hpp HermiteBenchFields); null where not measured.
void write_hermite_fields(JsonWriter& j, const Record& r) {
  const HermiteBenchFields& h = r.hermite;
  auto num = [&](const char* name, double v) {
    if (v >= 0 && r.timed()) {
      j.field(name, v);
    } else {
      j.key(name).null();
    }
  };
  j.field("softening", h.softening);
  j.field(r.rung == "leapfrog" ? "dt" : "eta", h.eta);
  j.field("interval", h.interval);
  num("wall_per_time_unit_s", h.wall_per_time_unit_s);
  num("energy_error", h.energy_error);
  j.field("block_steps", static_cast<long long>(h.block_steps));
  num("mean_active", h.mean_active);
  j.key("active_histogram").begin_array();
  for (std::uint64_t c : h.active_histogram) j.value(static_cast<long long>(c));
  j.end_array();
  num("effective_billion_interactions_per_s", h.effective_rate);
  num("all_pairs_billion_interactions_per_s", h.all_pairs_rate);
}

// The tree suite's fields (bench.hpp TreeFields; docs/tree.md explains each); null where not measured.
void write_tree_fields(JsonWriter& j, const Record& r) {
  const TreeFields& t = r.tree;
  auto num = [&](const char* key, double v) {
    if (v >= 0) {
      j.field(key, v);
    } else {
      j.key(key).null();
    }
  };
  j.field("model", t.model);
  if (r.rung.rfind("tree", 0) == 0 || r.rung == "crossover") j.field("theta", t.theta);
  j.field("softening", t.softening);
  j.field("samples", t.samples);
  num("force_error_p50", t.err_p50);
  num("force_error_p90", t.err_p90);
  num("force_error_p99", t.err_p99);
  num("force_error_max", t.err_max);
  if (r.rung == "crossover") {
    num("crossover_n", t.crossover_n);
    j.field("crossover_kind", t.crossover_kind);
    j.field("crossover_extrapolated", t.crossover_extrapolated);
    return;
  }
  const bool timed = r.timed();
  const bool tree = r.rung.rfind("tree", 0) == 0;
  if (tree) {
    num("keys_s", timed ? t.keys_s : -1);
    num("sort_s", timed ? t.sort_s : -1);
    num("keys_sort_s", timed ? t.keys_s + t.sort_s : -1);
    num("build_s", timed ? t.build_s : -1);
    num("multipoles_s", timed ? t.multipoles_s : -1);
    num("walk_s", timed ? t.walk_s : -1);
    num("kick_drift_s", timed ? t.kick_drift_s : -1);
  }
  num("force_pass_s", timed ? t.force_s : -1);
  num("step_s", timed ? t.step_s : -1);
  if (tree) num("walk_particles_per_s", timed && t.walk_s > 0 ? double(r.n) / t.walk_s : -1);
  num("force_particles_per_s", timed && t.force_s > 0 ? double(r.n) / t.force_s : -1);
  num("step_particles_per_s", timed && t.step_s > 0 ? double(r.n) / t.step_s : -1);
  if (tree) {
    num("m2p_per_particle", timed ? t.m2p_per_particle : -1);
    num("p2p_per_particle", timed ? t.p2p_per_particle : -1);
    num("interactions_per_particle", timed ? t.m2p_per_particle + t.p2p_per_particle : -1);
    num("tree_bytes_per_body", t.tree_bytes_per_body);
    num("device_bytes_per_body", t.device_bytes_per_body);
    j.field("cells", t.cells).field("groups", t.groups).field("depth", t.depth);
    j.field("same_bits", t.same_bits);
  } else {
    j.field("extrapolated", t.extrapolated_step_s >= 0);
    num("extrapolated_step_s", t.extrapolated_step_s);
  }
}

}  // namespace

void write_json(const Report& rep, const std::string& path) {
  JsonWriter j;
  j.begin_object();
  j.field("command", rep.options.command_line);
  j.field("complete", rep.complete);
  j.key("environment").begin_object();
  const Environment& e = rep.env;
  j.field("device", e.device)
      .field("sm_count", e.sm_count)
      .field("sm_clock_rated_mhz", e.sm_clock_rated_mhz)
      .field("sm_clock_measured_mhz", e.sm_clock_measured_mhz)
      .field("memory_clock_mhz", e.memory_clock_mhz)
      .field("driver", e.driver)
      .field("cuda_driver_api", e.cuda_driver_api)
      .field("cuda_runtime", e.cuda_runtime)
      .field("host_cpu", e.host_cpu)
      .field("host_threads", e.host_threads)
      .field("nbody_version", e.nbody_version)
      .field("git_revision", e.git_revision)
      .field("timestamp", e.timestamp);
  if (e.sm_count > 0 && e.sm_clock_measured_mhz > 0) {
    j.key("issue_ceiling_ginteractions").begin_object();
    j.field("fp32", issue_ceiling(Precision::fp32, e.sm_count, e.sm_clock_measured_mhz));
    j.field("fp64", issue_ceiling(Precision::fp64, e.sm_count, e.sm_clock_measured_mhz));
    j.end_object();
  }
  j.end_object();
  j.key("results").begin_array();
  for (const Record& r : rep.records) {
    j.begin_object();
    j.field("suite", r.suite).field("rung", r.rung).field("n", static_cast<long long>(r.n)).field("precision", r.precision);
    j.field("launch_shape", r.shape).field("steps", r.steps).field("repeats", r.repeats);
    if (r.timed()) {
      j.field("median_step_s", r.median_s).field("mean_step_s", r.mean_s).field("min_step_s", r.min_s);
      j.field("billion_interactions_per_s", r.rate);
    } else {
      j.key("median_step_s").null().key("mean_step_s").null().key("billion_interactions_per_s").null();
    }
    j.field("verified", r.verified).field("verification", r.verification);
    if (!r.error.empty()) j.field("error", r.error);
    if (!r.skipped.empty()) j.field("skipped", r.skipped);
    if (r.speedup_vs_serial > 0) j.field("speedup_vs_cpu_serial", r.speedup_vs_serial);
    if (r.speedup_vs_previous > 0) j.field("speedup_vs_previous_rung", r.speedup_vs_previous);
    if (r.fraction_of_ceiling > 0) j.field("fraction_of_issue_ceiling", r.fraction_of_ceiling);
    if (r.suite.rfind("tune", 0) == 0) j.field("policy_choice", r.policy_choice);
    if (r.energy_error > 0) j.field("relative_energy_error", r.energy_error);
    if (r.ranks > 0) {
      j.field("ranks", r.ranks);
      j.field("force_median_s", r.force_s);
      j.field("comm_median_s", r.comm_s);
      j.field("comm_fraction", r.median_s > 0 ? r.comm_s / r.median_s : 0.0);
      if (r.speedup_vs_one_rank > 0) j.field("speedup_vs_one_rank", r.speedup_vs_one_rank);
      if (r.efficiency > 0) j.field("efficiency", r.efficiency);
      if (r.pipelined_s > 0) {
        j.field("exchange", std::string("gather"));
        j.field("pipelined_median_s", r.pipelined_s);
        j.field("pipelined_chunks", r.pipelined_chunks);
        j.field("pipelined_speedup_vs_gather", r.median_s / r.pipelined_s);
        j.field("pipelined_same_bits", r.pipelined_same_bits);
      }
    }
    if (r.suite.rfind("pic", 0) == 0) {
      if (r.timed()) {
        j.field("ns_per_particle_step", r.ns_step);
        j.field("ns_per_particle_step_particle_kernels", r.ns_particles);
        j.field("device_bytes", r.device_bytes);
      }
      if (r.speedup_vs_baseline > 0) j.field("speedup_vs_cas_baseline", r.speedup_vs_baseline);
      if (r.suite == "pic-scaling") {
        j.field("device", r.shape).field("cells", static_cast<long long>(r.pic_cells));
        if (!r.pic_deposit.empty()) j.field("deposit", r.pic_deposit);
        if (!r.pic_exchange.empty()) j.field("guard_exchange", r.pic_exchange);
        if (r.rung.rfind("moving-target", 0) == 0 || r.rung.rfind("strong-balanced", 0) == 0)
          j.field("rebalances", r.rebalances);
        if (r.speedup_vs_even_split > 0) j.field("speedup_vs_even_split", r.speedup_vs_even_split);
        if (r.speedup_vs_slabs > 0) j.field("speedup_vs_slabs", r.speedup_vs_slabs);
        if (r.speedup_vs_every_step > 0) j.field("speedup_vs_sorting_every_step", r.speedup_vs_every_step);
        if (r.transfer_bytes > 0) j.field("bytes", r.transfer_bytes).field("gb_per_s", r.rate);
        if (r.speedup_vs_host > 0) j.field("speedup_vs_host_staged", r.speedup_vs_host);
        j.field("particles", static_cast<long long>(r.n));
        if (r.timed()) {
          j.field("particles_median_s", r.force_s).field("fields_s", r.pic_fields_s);
          j.field("migration_sort_s", r.pic_migration_s);
          if (r.ranks > 1) {
            j.field("particles_fastest_rank_s", r.particles_fastest_s);
            j.field("most_particles_on_a_rank_over_mean", r.most_particles_share);
          }
        }
        if (r.energy_error >= 0) j.field("energy_change_vs_one_rank", r.energy_error);
      }
      if (r.charge_error >= 0) j.field("gauss_residual_change", r.charge_error);
      if (r.empty_ratio > -2) {
        j.field("sort_every", r.sort_every);
        j.field("empty_ratio", r.empty_ratio);
        j.field("sorts", r.sorts);
      }
    }
    if (r.suite == "tree") write_tree_fields(j, r);
    if (r.suite == "hermite") write_hermite_fields(j, r);
    if (r.suite == "tree-scaling") write_tree_scaling_fields(j, r);
    if (r.suite == "ensemble") {
      j.field("systems", static_cast<long long>(r.ensemble_systems));
      j.field("measured_systems", static_cast<long long>(r.ensemble_measured_systems));
      if (r.timed()) j.field("system_steps_per_s", r.rate * 1e9);
      if (r.speedup_vs_cpu > 0) j.field("speedup_vs_cpu", r.speedup_vs_cpu);
      if (r.speedup_vs_one > 0) j.field("speedup_vs_one_at_a_time_gpu", r.speedup_vs_one);
    }
    j.end_object();
  }
  j.end_array();
  j.end_object();
  write_file_atomic(path, j.str() + "\n");
}

void write_csv(const Report& rep, const std::string& path) {
  std::ostringstream os;
  os << "suite,rung,n,precision,launch_shape,steps,repeats,median_step_s,mean_step_s,billion_interactions_per_s,"
        "verified,speedup_vs_cpu_serial,speedup_vs_previous_rung,fraction_of_issue_ceiling,policy_choice,"
        "relative_energy_error,error";
  // The tree suite's columns, only where it ran (the other suites' files keep their shape).
  const bool tree = std::any_of(rep.records.begin(), rep.records.end(), [](const Record& r) { return r.suite == "tree"; });
  if (tree) {
    os << ",model,theta,samples,force_error_p50,force_error_p90,force_error_p99,force_error_max,keys_s,sort_s,build_s,"
          "multipoles_s,walk_s,kick_drift_s,force_pass_s,step_s,walk_particles_per_s,step_particles_per_s,"
          "m2p_per_particle,p2p_per_particle,device_bytes_per_body,extrapolated_step_s,crossover_n";
  }
  // The hermite suite's columns, only where it ran.
  const bool hermite =
      std::any_of(rep.records.begin(), rep.records.end(), [](const Record& r) { return r.suite == "hermite"; });
  if (hermite) {
    os << ",softening,eta_or_dt,interval,wall_per_time_unit_s,block_steps,mean_active,active_histogram,"
          "effective_billion_interactions_per_s,all_pairs_billion_interactions_per_s";
  }
  // The pic-scaling suite's columns, only where it ran.
  const bool scaling = std::any_of(rep.records.begin(), rep.records.end(), [](const Record& r) { return r.suite == "pic-scaling"; });
  if (scaling) {
    os << ",ranks,cells,ns_per_particle_step,particles_s,fields_s,comm_s,migration_sort_s,speedup_vs_one_rank,efficiency,"
          "gauss_residual_change";
  }
  // The tree-scaling suite's columns, only where it ran.
  const bool tree_scaling =
      std::any_of(rep.records.begin(), rep.records.end(), [](const Record& r) { return r.suite == "tree-scaling"; });
  if (tree_scaling) os << tree_scaling_csv_header();
  os << '\n';
  for (const Record& r : rep.records) {
    auto quoted = [](std::string s) {
      std::string out = "\"";
      for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
      return out + "\"";
    };
    char nums[256];
    if (r.timed()) {
      std::snprintf(nums, sizeof nums, "%.9g,%.9g,%.9g", r.median_s, r.mean_s, r.rate);
    } else {
      std::snprintf(nums, sizeof nums, ",,");
    }
    os << r.suite << ',' << r.rung << ',' << r.n << ',' << r.precision << ',' << quoted(r.shape) << ',' << r.steps << ','
       << r.repeats << ',' << nums << ',' << (r.verified ? "true" : "false") << ',' << r.speedup_vs_serial << ','
       << r.speedup_vs_previous << ',' << r.fraction_of_ceiling << ',' << (r.policy_choice ? "true" : "false") << ','
       << r.energy_error << ',' << quoted(!r.error.empty() ? r.error : r.skipped);
    if (tree) {
      const TreeFields& t = r.tree;
      const bool on = r.timed();
      auto v = [&](double x, bool show = true) {
        os << ',';
        if (show && x >= 0) os << x;
      };
      os << ',' << t.model;
      v(t.theta, r.rung.rfind("direct", 0) != 0);
      os << ',' << t.samples;
      for (double e : {t.err_p50, t.err_p90, t.err_p99, t.err_max}) v(e);
      for (double x : {t.keys_s, t.sort_s, t.build_s, t.multipoles_s, t.walk_s, t.kick_drift_s, t.force_s, t.step_s}) v(x, on);
      v(on && t.walk_s > 0 ? double(r.n) / t.walk_s : -1);
      v(on && t.step_s > 0 ? double(r.n) / t.step_s : -1);
      v(t.m2p_per_particle, on);
      v(t.p2p_per_particle, on);
      v(t.device_bytes_per_body);
      v(t.extrapolated_step_s);
      v(t.crossover_n);
    }
    if (hermite) {
      const HermiteBenchFields& h = r.hermite;
      const bool on = r.suite == "hermite" && r.timed();
      auto v = [&](double x) {
        os << ',';
        if (on && x >= 0) os << x;
      };
      os << ',' << h.softening << ',' << h.eta << ',' << h.interval;
      v(h.wall_per_time_unit_s);
      os << ',' << h.block_steps;
      v(h.mean_active);
      std::string hist;
      for (std::uint64_t c : h.active_histogram) {
        if (!hist.empty()) hist += ' ';
        hist += std::to_string(c);
      }
      os << ',' << quoted(hist);
      v(h.effective_rate);
      v(h.all_pairs_rate);
    }
    if (scaling) {
      const bool on = r.suite == "pic-scaling" && r.timed();
      auto v = [&](double x) {
        os << ',';
        if (on) os << x;
      };
      os << ',' << r.ranks << ',' << r.pic_cells;
      for (double x : {r.ns_step, r.force_s, r.pic_fields_s, r.comm_s, r.pic_migration_s, r.speedup_vs_one_rank, r.efficiency,
                       r.charge_error})
        v(x);
    }
    if (tree_scaling) write_tree_scaling_csv(os, r);
    os << '\n';
  }
  write_file_atomic(path, os.str());
}

std::string policy_summary(const std::vector<const Record*>& sweep) {
  const Record* best = nullptr;
  const Record* chosen = nullptr;
  for (const Record* r : sweep) {
    if (r->timed() && (best == nullptr || r->rate > best->rate)) best = r;
    if (r->policy_choice) chosen = r;
  }
  if (best == nullptr || chosen == nullptr || !chosen->timed()) return "";
  char buf[256];
  std::snprintf(buf, sizeof buf, "policy %s %.4g Ginter/s = %.1f%% of the best measured (%s %.4g)",
                chosen->shape.c_str(), chosen->rate, 100 * chosen->rate / best->rate, best->shape.c_str(), best->rate);
  return buf;
}

}  // namespace nbody::bench
