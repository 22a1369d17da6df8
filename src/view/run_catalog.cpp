#include "view/run_catalog.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>
#include <system_error>

#include "core/json_writer.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"

namespace nbody::view {
namespace fs = std::filesystem;
namespace {

// The digits of `s` as a number; nullopt unless `s` is digits only.
std::optional<std::int64_t> digits_value(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// snapshot_NNN.<ext> with an extension a particle format has: NNN, else nullopt.
std::optional<int> snapshot_number(const fs::path& file) {
  const std::string stem = file.stem().string();
  constexpr std::string_view prefix = "snapshot_";
  if (stem.rfind(prefix, 0) != 0 || !format_from_extension(file)) return std::nullopt;
  const auto n = digits_value(std::string_view(stem).substr(prefix.size()));
  if (!n || *n > 1'000'000'000) return std::nullopt;
  return static_cast<int>(*n);
}

std::vector<SnapshotEntry> find_snapshots(const fs::path& dir) {
  std::vector<SnapshotEntry> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    if (const auto n = snapshot_number(e.path())) out.push_back({.number = *n, .file = e.path(), .time = 0});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
  return out;
}

// images/<quantity>_SSSSSSSS.png, grouped by quantity.
std::vector<ImageSeries> find_images(const fs::path& dir) {
  std::map<std::string, std::vector<ImageFrame>> by_quantity;
  std::error_code ec;
  if (!fs::is_directory(dir / "images", ec)) return {};
  for (const auto& e : fs::directory_iterator(dir / "images")) {
    if (!e.is_regular_file() || e.path().extension() != ".png") continue;
    const std::string stem = e.path().stem().string();
    const auto cut = stem.rfind('_');
    if (cut == std::string::npos || cut == 0) continue;
    const auto step = digits_value(std::string_view(stem).substr(cut + 1));
    if (!step) continue;
    by_quantity[stem.substr(0, cut)].push_back({.step = *step, .file = e.path().filename().string()});
  }
  std::vector<ImageSeries> out;
  for (auto& [quantity, frames] : by_quantity) {
    std::sort(frames.begin(), frames.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
    out.push_back({.quantity = quantity, .frames = std::move(frames)});
  }
  return out;
}

}  // namespace

RunCatalog scan_run(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw_input_error("view: no run directory '" + dir.string() + "'");
  if (!fs::is_directory(dir, ec)) throw_input_error("view: '" + dir.string() + "' is not a run directory");
  RunCatalog c;
  c.dir = dir;
  c.snapshots = find_snapshots(dir);
  if (!c.snapshots.empty()) {
    c.kind = RunCatalog::Kind::gravity;
    for (auto& s : c.snapshots) {
      const ParticleFileInfo info = read_particle_file_info(s.file);
      s.time = info.time;
      if (!c.units && info.units) c.units = info.units;
    }
    return c;
  }
  c.images = find_images(dir);
  if (!c.images.empty()) {
    c.kind = RunCatalog::Kind::pic;
    return c;
  }
  throw_input_error("view: '" + dir.string() +
                    "' holds no snapshots (snapshot_NNN.hdf5|tipsy|csv) and no images (images/*.png) to show");
}

std::string unit_system_name_of(const UnitSystemCgs& u) {
  for (const auto& name : unit_system_names()) {
    if (unit_system(name).cgs == u) return name;
  }
  return "";
}

std::string run_json(const RunCatalog& catalog, const std::vector<std::optional<std::size_t>>& counts,
                     std::size_t max_points, const std::vector<std::string>& components) {
  JsonWriter j;
  j.begin_object();
  j.field("kind", catalog.kind == RunCatalog::Kind::gravity ? "gravity" : "pic");
  j.field("run", catalog.dir.filename().empty() ? catalog.dir.parent_path().filename().string()
                                                : catalog.dir.filename().string());
  j.field("max_points", static_cast<long long>(max_points));
  if (catalog.units) {
    const UnitSystemCgs& u = *catalog.units;
    j.key("units").begin_object();
    j.field("name", unit_system_name_of(u));
    j.field("physical", u.physical);
    j.field("length_cm", u.UnitLength_in_cm);
    j.field("mass_g", u.UnitMass_in_g);
    j.field("velocity_cm_per_s", u.UnitVelocity_in_cm_per_s);
    j.field("time_s", u.UnitTime_in_s);
    j.end_object();
  } else {
    j.key("units").null();
  }
  // The names of the component tags (disk, bulge, halo, ...), index = tag.
  j.key("components").begin_array();
  for (const std::string& name : components) j.value(name);
  j.end_array();
  j.key("snapshots").begin_array();
  for (std::size_t i = 0; i < catalog.snapshots.size(); ++i) {
    const auto& s = catalog.snapshots[i];
    j.begin_object();
    j.field("index", static_cast<long long>(i));
    j.field("file", s.file.filename().string());
    j.field("time", s.time);
    j.key("count");
    if (i < counts.size() && counts[i]) {
      j.value(static_cast<long long>(*counts[i]));
    } else {
      j.null();
    }
    j.end_object();
  }
  j.end_array();
  j.key("images").begin_array();
  for (const auto& series : catalog.images) {
    j.begin_object();
    j.field("quantity", series.quantity);
    j.key("frames").begin_array();
    for (const auto& f : series.frames) {
      j.begin_object().field("step", static_cast<long long>(f.step)).field("file", f.file).end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

}  // namespace nbody::view
