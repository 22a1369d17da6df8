// The [laser] table of a PIC deck: a plane wave (the default), a Gaussian transverse profile, or a
// focused paraxial Gaussian beam, at normal or oblique incidence (pic/physics/laser.hpp).
#include <cmath>

#include "pic/driver/config.hpp"
#include "pic/driver/config_read.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {

using namespace deck_read;

namespace {

// The largest incidence angle taken (degrees): beyond, the injected e_y (cos theta of the wave)
// and the Mur boundary's absorption of what comes back ((1 - cos)/(1 + cos): 0.17 at 60 degrees)
// both degrade, and the grid's anisotropic dispersion grows.
constexpr double kMaxAngleDeg = 60;
// The smallest focused waist (wavelengths): the paraxial beam's divergence lambda/(pi w0) is then
// at most 0.64 rad; tighter foci need the non-paraxial solution.
constexpr double kMinFocusedWaist = 0.5;

}  // namespace

void read_laser(const toml::table& t, PicConfig& c) {
  Laser& l = c.laser;
  l.enabled = true;
  for (const auto& [name, node] : t) {
    const std::string k(name.str()), key = "laser." + k;
    const toml::node* v = &node;
    if (k == "enabled") l.enabled = boolean(v, key);
    else if (k == "a0") l.a0 = num(v, key);
    else if (k == "intensity_W_cm2") c.laser_intensity_W_cm2 = num(v, key);
    else if (k == "polarisation") {
      if (!parse_polarisation(text(v, key), l.polarisation)) bad(key, quoted_text(text(v, key)) + " is not one of linear, linear_z, circular");
    } else if (k == "envelope") {
      if (!parse_envelope(text(v, key), l.envelope)) bad(key, quoted_text(text(v, key)) + " is not one of sin2, gaussian, flattop");
    } else if (k == "duration") l.duration = num(v, key);
    else if (k == "rise") l.rise = num(v, key);
    else if (k == "delay") l.delay = num(v, key);
    else if (k == "transverse") {
      const std::string s = text(v, key);
      l.gaussian_transverse = s == "gaussian";
      l.focused = s == "focused";
      if (s != "plane" && s != "gaussian" && s != "focused") bad(key, quoted_text(s) + " is not one of plane, gaussian, focused");
    } else if (k == "waist") l.waist = num(v, key);
    else if (k == "y_centre") l.y_centre = num(v, key);
    else if (k == "focus_x") {
      l.focus_x = num(v, key);
      c.laser_focus_given = true;
    } else if (k == "angle_deg") c.laser_angle_deg = num(v, key);
    else bad(key, "unknown key");
  }
}

void validate_laser(const PicConfig& c) {
  const Laser& l = c.laser;
  if (!l.enabled) return;
  if (c.field_bc.x != FieldBoundary::open) bad("laser", "needs grid.boundary_x = \"open\" (it enters through the left boundary)");
  if (!(l.a0 > 0) && !(c.laser_intensity_W_cm2 > 0)) bad("laser", "give a0 or intensity_W_cm2 (with units.wavelength_um)");
  if (l.a0 > 0 && c.laser_intensity_W_cm2 > 0) bad("laser", "give a0 or intensity_W_cm2, not both");
  if (!(l.duration > 0)) bad("laser.duration", "must be > 0 (in laser periods)");
  if (l.envelope == Envelope::flattop && !(l.rise > 0)) bad("laser.rise", "must be > 0 for a flattop envelope");
  if (l.gaussian_transverse && !(l.waist > 0)) bad("laser.waist", "must be > 0 for a gaussian transverse profile");
  if (!(std::fabs(l.y_centre) < 1e9)) bad("laser.y_centre", g(l.y_centre) + " must be within 1e9 wavelengths of 0");
  if (l.focused) {
    if (!(l.waist >= kMinFocusedWaist && l.waist <= 1e6))
      bad("laser.waist", g(l.waist) + " must be in [0.5, 1e6] wavelengths for a focused beam (the 1/e field radius at the "
                                       "focus; below 0.5 the paraxial beam's divergence exceeds 0.64 rad)");
    if (!c.laser_focus_given) bad("laser.focus_x", "is needed for transverse = \"focused\" (the focal plane's x, in wavelengths)");
    if (!(std::fabs(l.focus_x) < 1e9)) bad("laser.focus_x", g(l.focus_x) + " must be within 1e9 wavelengths of 0");
  } else if (c.laser_focus_given) {
    bad("laser.focus_x", "is read only with transverse = \"focused\"");
  }
  const double a = c.laser_angle_deg;
  if (!(std::fabs(a) < kMaxAngleDeg))
    bad("laser.angle_deg", g(a) + " must be within (-60, 60) degrees (the incidence angle from +x towards +y)");
  // A plane wave on a periodic y axis: its phase along the boundary must repeat over the strip.
  if (a != 0 && !l.focused && !l.gaussian_transverse && c.field_bc.y == FieldBoundary::periodic) {
    const double waves = double(c.ny) * c.dy * std::sin(a * kPi / 180);
    const double whole = std::round(waves);
    if (std::fabs(waves - whole) > 1e-6 * std::max(1.0, std::fabs(waves))) {
      const double lo = std::asin(std::trunc(waves) / (c.ny * c.dy)) * 180 / kPi;
      const double hi = std::fabs(waves) + 1 <= c.ny * c.dy
                            ? std::asin((std::trunc(waves) + (waves > 0 ? 1 : -1)) / (c.ny * c.dy)) * 180 / kPi
                            : lo;
      bad("laser.angle_deg", g(a) + " with a plane wave on a periodic y axis needs a whole number of wavelengths along "
                                    "the strip: ny dy sin(angle) = " + g(waves) + " (the nearest angles that fit: " + g(lo) +
                                    ", " + g(hi) + "; or open y, or a gaussian or focused transverse profile)");
    }
  }
}

void laser_in_code_units(const PicConfig& c, Laser& l, double x0) {
  if (c.laser_intensity_W_cm2 > 0)
    l.a0 = a0_from_intensity(c.laser_intensity_W_cm2 * 1e4, c.wavelength_um * 1e-6, l.polarisation == Polarisation::circular);
  l.duration *= kTwoPi, l.rise *= kTwoPi, l.delay *= kTwoPi, l.waist *= kTwoPi, l.y_centre *= kTwoPi;
  l.focus_x *= kTwoPi;
  l.angle = c.laser_angle_deg * kPi / 180;
  l.x_left = x0;
}

}  // namespace nbody::pic
