#include "io/csv_snapshot.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/strings.hpp"
#include "io/atomic_file.hpp"
#include "io/components.hpp"
#include "nbody/error.hpp"

namespace nbody {

namespace {

constexpr std::string_view kTimeKey = "time";
constexpr std::string_view kComponentsKey = "components";
constexpr std::string_view kSofteningKey = "softening";
const char* const kUnitKeys[] = {"UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s", "UnitTime_in_s"};

double* unit_field(UnitSystemCgs& u, int k) {
  double* fields[] = {&u.UnitLength_in_cm, &u.UnitMass_in_g, &u.UnitVelocity_in_cm_per_s, &u.UnitTime_in_s};
  return fields[k];
}

}  // namespace

template <class T>
std::string csv_snapshot_text(const Particles<T>& p, const CsvMeta* meta) {
  constexpr int digits = sizeof(T) == 4 ? 9 : 17;
  const bool components = !p.component_names.empty();
  std::string out = components ? "id,m,x,y,z,vx,vy,vz,component\n" : "id,m,x,y,z,vx,vy,vz\n";
  if (meta != nullptr) {
    UnitSystemCgs u = meta->units;
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", meta->time);
    out += "# " + std::string(kTimeKey) + " = " + text;
    for (int k = 0; k < 4; ++k) {
      std::snprintf(text, sizeof text, "%.17g", *unit_field(u, k));
      out += std::string(", ") + kUnitKeys[k] + " = " + text;
    }
    if (meta->softening) {
      std::snprintf(text, sizeof text, "%.17g", *meta->softening);
      out += std::string(", ") + std::string(kSofteningKey) + " = " + text;
    }
    out += "\n";
  }
  if (components) out += "# " + std::string(kComponentsKey) + " = " + join_component_names(p.component_names) + "\n";
  out.reserve(out.size() + p.size() * (8 * (digits + 8) + (components ? 4 : 0)));
  char row[512];
  for (std::size_t i = 0; i < p.size(); ++i) {
    const int len = std::snprintf(row, sizeof row, "%llu,%.*g,%.*g,%.*g,%.*g,%.*g,%.*g,%.*g\n",
                                  static_cast<unsigned long long>(p.id[i]), digits, double(p.m[i]), digits,
                                  double(p.x[i]), digits, double(p.y[i]), digits, double(p.z[i]), digits,
                                  double(p.vx[i]), digits, double(p.vy[i]), digits, double(p.vz[i]));
    out.append(row, static_cast<std::size_t>(len));
    if (components) {
      out.back() = ',';
      out += std::to_string(static_cast<unsigned>(p.component_of(i)));
      out += '\n';
    }
  }
  return out;
}

template <class T>
void write_csv_snapshot(const std::filesystem::path& path, const Particles<T>& p, const CsvMeta* meta) {
  write_file_atomic(path, csv_snapshot_text(p, meta));
}

namespace {

constexpr std::string_view kCsvHeader = "id,m,x,y,z,vx,vy,vz";
constexpr std::string_view kCsvComponentHeader = "id,m,x,y,z,vx,vy,vz,component";


std::string line_name(std::size_t line) { return "line " + std::to_string(line); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// The components comment "# components = a, b, c" into `names`; false for another comment.
bool read_components_comment(std::string_view text, std::vector<std::string>& names, const std::filesystem::path& path,
                             std::size_t line) {
  text.remove_prefix(1);  // '#'
  text = trim(text);
  if (text.substr(0, kComponentsKey.size()) != kComponentsKey) return false;
  std::string_view rest = trim(text.substr(kComponentsKey.size()));
  if (rest.empty() || rest.front() != '=') return false;
  rest = trim(rest.substr(1));
  names.clear();
  while (true) {
    const auto comma = rest.find(',');
    names.emplace_back(trim(rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  check_component_names(names, path, line_name(line));
  return true;
}

// The metadata comment "# time = T, UnitLength_in_cm = L, ..." into `info`; false for another
// comment. Every value must be a finite number (the units > 0).
bool read_meta_comment(std::string_view text, ParticleFileInfo& info, const std::filesystem::path& path,
                       std::size_t line) {
  text.remove_prefix(1);  // '#'
  text = trim(text);
  if (text.substr(0, kTimeKey.size()) != kTimeKey) return false;
  std::optional<double> time;
  UnitSystemCgs u;
  int units_seen = 0;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw_file_error(path, line_name(line) + ": expected 'key = value' in the metadata comment, got " +
                                 quoted_text(item, 60));
    }
    const std::string_view key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    double v = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || ptr != value.data() + value.size() || value.empty() || !std::isfinite(v)) {
      throw_file_error(path, line_name(line) + ": " + printable(key) + " is not a finite number (" +
                                 quoted_text(value) + ")");
    }
    if (key == kTimeKey) {
      time = v;
      continue;
    }
    if (key == kSofteningKey) {
      if (v < 0) {
        throw_file_error(path, line_name(line) + ": softening must be >= 0 (" + quoted_text(value) + ")");
      }
      info.softening = v;
      continue;
    }
    for (int k = 0; k < 4; ++k) {
      if (key != kUnitKeys[k]) continue;
      if (!(v > 0)) {
        throw_file_error(path, line_name(line) + ": " + std::string(key) + " must be > 0 (" + quoted_text(value) + ")");
      }
      *unit_field(u, k) = v;
      ++units_seen;
    }
  }
  if (time) info.time = *time;
  if (units_seen == 4) {
    u.physical = u.UnitLength_in_cm != 1 || u.UnitMass_in_g != 1 || u.UnitVelocity_in_cm_per_s != 1;
    info.units = u;
  } else if (units_seen != 0) {
    throw_file_error(path, line_name(line) + ": the metadata comment gives some of the four units, not all");
  }
  return true;
}

}  // namespace

ParticleFileData read_csv_particles(const std::filesystem::path& path, FileRead what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_file_error(path, "cannot open for reading");
  ParticleFileData data;
  auto& p = data.particles;
  std::vector<std::size_t> line_of;
  std::string raw;
  std::size_t line = 0;
  bool header = false, meta_read = false, names_read = false, with_component = false;
  static const char* const kNames[] = {"id", "m", "x", "y", "z", "vx", "vy", "vz", "component"};
  while (std::getline(in, raw)) {
    ++line;
    const std::string_view text = trim(raw);
    if (text.empty()) continue;
    if (!header) {
      with_component = text == kCsvComponentHeader;
      if (text != kCsvHeader && !with_component) {
        throw_file_error(path, line_name(line) + ": expected the CSV header '" + std::string(kCsvHeader) + "' (or '" +
                                   std::string(kCsvComponentHeader) + "'), got " + quoted_text(text, 60));
      }
      header = true;
      continue;
    }
    if (text.front() == '#') {
      if (!meta_read && read_meta_comment(text, data.info, path, line)) {
        meta_read = true;
      } else if (!names_read && read_components_comment(text, p.component_names, path, line)) {
        names_read = true;
      }
      continue;
    }
    if (what == FileRead::metadata) return data;
    const std::size_t columns = with_component ? 9 : 8;
    std::string_view fields[9];
    std::size_t count = 0;
    std::string_view rest = text;
    while (true) {
      const auto comma = rest.find(',');
      if (count == columns) {
        throw_file_error(path, line_name(line) + ": more than " + std::to_string(columns) + " values (the header has " +
                                   std::to_string(columns) + " columns)");
      }
      fields[count++] = trim(rest.substr(0, comma));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    if (count != columns) {
      throw_file_error(path, line_name(line) + ": " + std::to_string(count) + " values, expected " +
                                 std::to_string(columns) + " (the row is incomplete: truncated file?)");
    }
    std::uint8_t component = 0;
    if (with_component) {
      const auto f = fields[8];
      unsigned tag = 0;
      const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), tag);
      if (ec != std::errc() || ptr != f.data() + f.size() || f.empty() || tag >= kMaxComponents) {
        throw_file_error(path, line_name(line) + ": component is not a whole number from 0 to " +
                                   std::to_string(kMaxComponents - 1) + " (" + quoted_text(f) + ")");
      }
      component = static_cast<std::uint8_t>(tag);
    }
    std::uint64_t id = 0;
    {
      const auto f = fields[0];
      const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), id);
      if (ec != std::errc() || ptr != f.data() + f.size() || f.empty()) {
        throw_file_error(path, line_name(line) + ": id is not a whole number >= 0 (" + quoted_text(f) + ")");
      }
    }
    double v[7];
    for (int k = 0; k < 7; ++k) {
      const auto f = fields[k + 1];
      const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), v[k]);
      if (ec == std::errc::result_out_of_range) {
        throw_file_error(path, line_name(line) + ": " + kNames[k + 1] + " is out of range (" + quoted_text(f) + ")");
      }
      if (ec != std::errc() || ptr != f.data() + f.size() || f.empty()) {
        throw_file_error(path, line_name(line) + ": " + kNames[k + 1] + " is not a number (" + quoted_text(f) + ")");
      }
    }
    p.id.push_back(id);
    p.m.push_back(v[0]);
    p.x.push_back(v[1]);
    p.y.push_back(v[2]);
    p.z.push_back(v[3]);
    p.vx.push_back(v[4]);
    p.vy.push_back(v[5]);
    p.vz.push_back(v[6]);
    p.component.push_back(component);
    line_of.push_back(line);
  }
  if (in.bad()) throw_file_error(path, "read error");
  if (!header) throw_file_error(path, "empty file (no CSV header)");
  if (!with_component && names_read && p.component_names.size() > 1) {
    throw_file_error(path, "the components comment names " + std::to_string(p.component_names.size()) +
                               " components, but the file has no component column");
  }
  if (with_component && !names_read) p.component_names = numbered_component_names(p.component);
  validate_particles(p, path, [&](std::size_t i) { return line_name(line_of[i]); });
  return data;
}

template std::string csv_snapshot_text<float>(const Particles<float>&, const CsvMeta*);
template std::string csv_snapshot_text<double>(const Particles<double>&, const CsvMeta*);
template void write_csv_snapshot<float>(const std::filesystem::path&, const Particles<float>&, const CsvMeta*);
template void write_csv_snapshot<double>(const std::filesystem::path&, const Particles<double>&, const CsvMeta*);

}  // namespace nbody
