// The tree-scaling suite's line, JSON fields and CSV columns (tree_scaling.hpp).
#include <algorithm>
#include <cstdio>
#include <string>

#include "bench.hpp"
#include "core/json_writer.hpp"
#include "tree_scaling.hpp"

namespace nbody::bench {

std::string tree_scaling_row(const Record& r) {
  const TreeScalingFields& t = r.tree_scaling;
  char head[160];
  std::snprintf(head, sizeof head, "%-12s %-10s %-5s %9lld %-22s", r.suite.c_str(), r.rung.c_str(), r.precision.c_str(),
                static_cast<long long>(r.n), r.shape.substr(0, 22).c_str());
  std::string line = head;
  if (!r.skipped.empty()) return line + "  " + r.skipped;
  if (!r.error.empty()) return line + "  ERROR: " + r.error;
  const auto& p = t.phase_s;
  char body[600];
  std::snprintf(body, sizeof body,
                " step %.4g ms (decomp %.3g top %.3g move %.3g exch %.3g build %.3g mult %.3g walk %.4g int %.3g other %.3g) | "
                "%.4g M bodies*steps/s a rank | sent %.3g MB max, %.3g MB all | peak %.0f bodies %.0f cells | "
                "p50 %.2g p99 %.2g",
                p[9] * 1e3, p[0] * 1e3, p[1] * 1e3, p[2] * 1e3, p[3] * 1e3, p[4] * 1e3, p[5] * 1e3, p[6] * 1e3,
                p[7] * 1e3, p[8] * 1e3, t.rate_per_rank / 1e6, t.bytes_sent_max / 1e6, t.bytes_sent_total / 1e6, t.peak_bodies_max,
                t.peak_cells_max, t.err_p50, t.err_p99);
  line += body;
  if (r.speedup_vs_one_rank > 0) {
    std::snprintf(body, sizeof body, " | speedup %.3g", r.speedup_vs_one_rank);
    line += body;
  }
  if (r.efficiency > 0) {
    std::snprintf(body, sizeof body, " | efficiency %.1f%%", 100 * r.efficiency);
    line += body;
  }
  return line;
}

void write_tree_scaling_fields(JsonWriter& j, const Record& r) {
  const TreeScalingFields& t = r.tree_scaling;
  const TreeScalingSetup& s = t.setup;
  j.field("device", t.device).field("threads_per_rank", t.threads);
  j.field("model", s.model).field("theta", s.theta).field("softening", s.softening);
  j.field("leaf_size", s.leaf).field("group_size", s.group).field("dt", s.dt);
  j.field("warmup_steps", s.warm).field("bodies_per_rank", t.bodies_per_rank);
  j.field("samples", t.samples);
  for (const auto& [name, v] : {std::pair{"force_error_p50", t.err_p50}, std::pair{"force_error_p90", t.err_p90},
                                std::pair{"force_error_p99", t.err_p99}, std::pair{"force_error_max", t.err_max}}) {
    if (v >= 0) {
      j.field(name, v);
    } else {
      j.key(name).null();
    }
  }
  if (t.compared_with_one_rank) j.field("same_bits_as_one_rank", t.same_bits_as_one_rank);
  if (!r.timed()) return;
  j.key("phase_median_s").begin_object();
  for (std::size_t q = 0; q < kTreeScalingPhases.size(); ++q) j.field(kTreeScalingPhases[q], t.phase_s[q]);
  j.end_object();
  j.field("bodies_steps_per_s_per_rank", t.rate_per_rank);
  j.field("bytes_sent_max", t.bytes_sent_max).field("bytes_sent_total", t.bytes_sent_total);
  j.field("let_bytes_sent_max", t.let_bytes_sent_max);
  j.field("migrated_bodies_max", t.migrated_bodies_max).field("migration_bytes_max", t.migration_bytes_max);
  j.field("peak_bodies_max", t.peak_bodies_max).field("peak_cells_max", t.peak_cells_max);
  j.field("remote_bodies_max", t.remote_bodies_max);
  j.field("terms_per_body", t.terms_per_body).field("work_imbalance", t.work_imbalance);
}

std::string tree_scaling_csv_header() {
  std::string h = ",ranks,device,threads_per_rank,model,theta,bodies_per_rank";
  for (const char* q : kTreeScalingPhases) h += std::string(",") + q + "_s";
  h += ",bodies_steps_per_s_per_rank,speedup_vs_one_rank,efficiency,bytes_sent_max,bytes_sent_total,let_bytes_sent_max,"
       "migrated_bodies_max,migration_bytes_max,peak_bodies_max,peak_cells_max,remote_bodies_max,terms_per_body,"
       "work_imbalance,samples,force_error_p50,force_error_p99,force_error_max";
  return h;
}

void write_tree_scaling_csv(std::ostringstream& os, const Record& r) {
  const bool on = r.suite == "tree-scaling";
  const bool timed = on && r.timed();
  const TreeScalingFields& t = r.tree_scaling;
  if (!on) {
    const std::string h = tree_scaling_csv_header();
    os << std::string(std::size_t(std::count(h.begin(), h.end(), ',')), ',');
    return;
  }
  auto v = [&](double x, bool show) {
    os << ',';
    if (show) os << x;
  };
  os << ',' << r.ranks << ',' << t.device << ',' << t.threads << ',' << t.setup.model << ',' << t.setup.theta << ','
     << t.bodies_per_rank;
  for (const double x : t.phase_s) v(x, timed);
  v(t.rate_per_rank, timed);
  v(r.speedup_vs_one_rank, timed && r.speedup_vs_one_rank > 0);
  v(r.efficiency, timed && r.efficiency > 0);
  for (const double x : {t.bytes_sent_max, t.bytes_sent_total, t.let_bytes_sent_max, t.migrated_bodies_max,
                         t.migration_bytes_max, t.peak_bodies_max, t.peak_cells_max, t.remote_bodies_max,
                         t.terms_per_body, t.work_imbalance})
    v(x, timed);
  os << ',' << t.samples;
  for (const double x : {t.err_p50, t.err_p99, t.err_max}) v(x, x >= 0);
}

}  // namespace nbody::bench
