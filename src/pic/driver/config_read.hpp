#pragma once
// The readers of a PIC deck's values (toml++ nodes), shared by the translation units that read
// the deck (config.cpp, config_laser.cpp, config_species.cpp, config_outputs.cpp): each checks its
// type and range and throws one input error naming the key.
#include <toml++/toml.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "core/strings.hpp"
#include "nbody/error.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic::deck_read {

inline constexpr double kTwoPi = 2 * kPi;

// A number as an error line shows it ("1e+300", "0.02").
inline std::string g(double v) { return format_line("%.6g", v); }

[[noreturn]] inline void bad(const std::string& key, const std::string& what) {
  throw_input_error("pic config: " + key + ": " + what);
}

// The value as the deck wrote it, for an error line.
inline std::string shown(const toml::node* n) {
  std::ostringstream o;
  n->visit([&](const auto& v) { o << v; });
  return o.str();
}

// Every number of a deck is finite: a NaN or an infinity names its key (nothing downstream is
// asked to make sense of it).
inline double num(const toml::node* n, const std::string& key) {
  if (auto v = n->value<double>()) {
    if (!std::isfinite(*v)) bad(key, shown(n) + " is not a finite number");
    return *v;
  }
  bad(key, "must be a number");
}
// Integers are read as 64-bit; a float is taken only when it is a whole number in range.
inline std::int64_t integer(const toml::node* n, const std::string& key) {
  if (n->is_boolean()) bad(key, "must be an integer, not true or false");
  if (n->is_integer()) return *n->value<std::int64_t>();
  if (auto d = n->value<double>(); d && std::isfinite(*d) && std::floor(*d) == *d && std::fabs(*d) < 9.0e15)
    return std::int64_t(*d);
  bad(key, shown(n) + " is not an integer");
}
// An integer that the engine holds in 32 bits (cell counts, particles per cell): out of range is
// an error, never a wrap-around.
inline int int32(const toml::node* n, const std::string& key) {
  const std::int64_t v = integer(n, key);
  if (v < -2147483647 || v > 2147483647) bad(key, std::to_string(v) + " is out of range (at most 2147483647)");
  return int(v);
}
inline std::string text(const toml::node* n, const std::string& key) {
  if (auto v = n->value<std::string>()) return *v;
  bad(key, "must be a string");
}
inline bool boolean(const toml::node* n, const std::string& key) {
  if (auto v = n->value<bool>()) return *v;
  bad(key, "must be true or false");
}
inline std::vector<double> numbers(const toml::node* n, const std::string& key) {
  const toml::array* a = n->as_array();
  if (!a) bad(key, "must be an array of numbers");
  std::vector<double> out;
  for (const auto& e : *a) out.push_back(num(&e, key));
  return out;
}

}  // namespace nbody::pic::deck_read

namespace nbody::pic {

struct PicConfig;
struct Laser;
struct SpeciesConfig;

// The [laser] table (config_laser.cpp): its keys read into c.laser (deck units), its values
// checked against the grid, and the laser in code units (c/omega0, 1/omega0, radians) for a grid
// starting at x0 (c/omega0).
void read_laser(const toml::table& t, PicConfig& c);
void validate_laser(const PicConfig& c);
void laser_in_code_units(const PicConfig& c, Laser& l, double x0);

// The [output] table with its [[output.fields]], [[output.particles]] and [[output.probe]]
// tables (config_outputs.cpp), and their checks against the grid, the species and the build.
void read_outputs(const toml::table& t, PicConfig& c);
void validate_outputs(const PicConfig& c);

// A [[species]] table (config_species.cpp); `deck` names the deck, whose directory relative
// table files are read from.
void read_species(const toml::table& t, SpeciesConfig& s, const std::string& where, const std::string& deck);
// The density's own checks: an expression finite and >= 0 at every cell centre, keys that go
// with their profile.
void validate_density(const PicConfig& c, const SpeciesConfig& s, const std::string& where);
// The largest density of the species at the grid's cell centres (n0 for the analytic profiles).
double density_peak(const PicConfig& c, const SpeciesConfig& s);
// `file` as an absolute path, a relative one taken from the directory of `deck`.
std::string resolved_path(const std::string& file, const std::string& deck);

}  // namespace nbody::pic
