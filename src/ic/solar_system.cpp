// The Sun, the eight planets and Pluto at J2000.0 = JD 2451545.0 TDB (2000-01-01 12:00 TDB),
// barycentric, ecliptic and mean equinox of J2000.0; native units au, Msun, Gaussian year
// (G = 4 pi^2), converted to the run's --units (solar or galactic; henon is refused: these are
// physical state vectors with no Henon scaling).
//
// Sources.
// - State vectors: JPL Horizons, ephemeris DE441, geometric states at JD 2451545.0 TDB,
//   CENTER='@0' (solar-system barycentre), REF_PLANE=FRAME (ICRF axes), OUT_UNITS=KM-S,
//   VEC_TABLE=2, one request per body: targets 10 (Sun), 199, 299, 399 (Earth), 499 (planet
//   centres), and 301 (Moon) with CENTER='@399'. The digits below are those the Horizons API
//   prints for these requests.
// - Jupiter, Saturn, Uranus and Neptune: the system barycentres (DE bodies 5-8), from JPL's DE440
//   Chebyshev coefficients (the binary ephemeris linux_p1550p2650.440) evaluated at JD 2451545.0
//   TDB, km and km/s, ICRF, barycentric. DE440 and DE441 agree there: the Sun's and Mercury's
//   states from DE440 equal the Horizons (DE441) values above to 16 digits. The planet centres
//   differ from the barycentres by up to 1.27 m/s (Saturn: Titan's reflex; Neptune: Triton's),
//   which would turn the planets' longitudes by 28-435 arcseconds a century.
// - Masses: GM of the Sun and of the planetary systems (planet + satellites, Horizons' perturber
//   masses), km^3 s^-2, from NAIF's gm_de440.tpc (BODY10_GM, BODY1_GM .. BODY9_GM; BODY399_GM and
//   BODY301_GM for the Earth-Moon split). Masses in Msun are GM / GM_sun.
// - Pluto: JPL's "Keplerian Elements for Approximate Positions of the Major Planets" (E. M.
//   Standish), Table 1 (1800-2050), J2000 mean elements in the ecliptic frame, turned into a
//   heliocentric state by solving Kepler's equation; its position error is of order 0.01 au. Its
//   mass (1 / 1.36e8 Msun) hardly perturbs the others.
//
// Recipe.
// 1. The Earth and the Moon are one body: the Earth-Moon barycentre (EMB), r = r_E + GM_M /
//    (GM_E + GM_M) r_Moon,geocentric (likewise v), with the Earth-Moon mass. Mercury, Venus and
//    Mars (whose satellites weigh nothing here) are their centres with their system masses;
//    Jupiter to Neptune are their system barycentres with their system masses.
// 2. ICRF (equatorial) to the ecliptic of J2000.0: a rotation by the obliquity
//    eps = 84381.448 arcsec about the x axis (the frame Horizons calls "Ecliptic of J2000.0").
// 3. km -> au (1 au = 149597870.7 km), km/s -> au per Gaussian year (365.2568983 d).
// 4. Pluto's heliocentric state plus the Sun's barycentric state; then the ten bodies are
//    re-centred on their own barycentre (they omit asteroids and the like, so the ephemeris' SSB
//    is off by ~1e-7 au).
// Checks (tests): the EMB is 0.983 au from the Sun (early January, near perihelion), its orbit in
// the model closes after one sidereal year, and 150 days on every planet's heliocentric direction
// is within 0.2 arcsecond of DE440's (Mercury's is its relativistic precession).
//
// n must be 10: other values are an input error (the model has exactly these ten bodies).
#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "core/units.hpp"
#include "ic/ic.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

constexpr double kAuKm = 149597870.7;
constexpr double kObliquityArcsec = 84381.448;

struct HorizonsState {
  const char* name;
  double gm;                 // km^3 s^-2 (system GM)
  std::array<double, 3> r;   // km, ICRF, barycentric
  std::array<double, 3> v;   // km/s
};

// JD 2451545.0 TDB, CENTER='@0', ICRF: DE441 (Horizons) for the Sun to Mars, DE440 for Jupiter to Neptune.
constexpr double kGmEarth = 3.9860043550702266e+05;  // BODY399_GM
constexpr double kGmMoon = 4.9028001184575496e+03;   // BODY301_GM
constexpr std::array<double, 3> kEarthR = {-2.756674048281145e+07, 1.323613811535491e+08, 5.741865328625385e+07};
constexpr std::array<double, 3> kEarthV = {-2.978494749851088e+01, -5.029753814928081e+00, -2.180645069035755e+00};
// Moon relative to the Earth (CENTER='@399').
constexpr std::array<double, 3> kMoonR = {-2.916083841877129e+05, -2.667168338540655e+05, -7.610248730658794e+04};
constexpr std::array<double, 3> kMoonV = {6.435313889889519e-01, -6.660876829565195e-01, -3.013257046610932e-01};

const std::array<HorizonsState, 9>& horizons_states() {
  static const std::array<HorizonsState, 9> s = {{
      {"Sun", 1.3271244004127942e+11,
       {-1.067706805380953e+06, -3.960361847959462e+05, -1.380651842868809e+05},
       {9.312571926520472e-03, -1.170150612817771e-02, -5.251266205200356e-03}},
      {"Mercury", 2.2031868551400003e+04,
       {-2.052943316123468e+07, -6.032400395827633e+07, -3.013083786411830e+07},
       {3.700430442920571e+01, -8.541376789510446e+00, -8.398372409672424e+00}},
      {"Venus", 3.2485859200000000e+05,
       {-1.085242008575715e+08, -7.318564959678600e+06, 3.548121861333776e+06},
       {1.391218601189967e+00, -3.202951993781091e+01, -1.449708673947320e+01}},
      {"Earth-Moon barycentre", kGmEarth + kGmMoon, kEarthR, kEarthV},  // the Moon is added below
      {"Mars", 4.2828375815756102e+04,
       {2.069804338364610e+08, -1.864170112571357e+05, -5.667227497442207e+06},
       {1.171984975692608e+00, 2.390670819298843e+01, 1.093392065056128e+01}},
      // Jupiter to Neptune: the system barycentres (planet and satellites), which carry the
      // system masses; from DE440 (see the sources above).
      {"Jupiter", 1.2671276409999998e+08,
       {5.974998767925479e+08, 4.089903139317586e+08, 1.607562819387202e+08},
       {-7.900525116640774e+00, 1.017179630923791e+01, 4.552467787262923e+00}},
      {"Saturn", 3.7940584841799997e+07,
       {9.573174174143426e+08, 9.233196218969914e+08, 3.401628003886153e+08},
       {-7.422709426014507e+00, 6.097474815228996e+00, 2.837682288255575e+00}},
      {"Uranus", 5.7945563999999985e+06,
       {2.157907312953845e+09, -1.871306838939559e+09, -8.501068000312823e+08},
       {4.646336807878125e+00, 4.251152675974153e+00, 1.796172785811120e+00}},
      {"Neptune", 6.8365271005803989e+06,
       {2.513978721723720e+09, -3.438170140316855e+09, -1.469851523010959e+09},
       {4.475214621751308e+00, 2.877104855637858e+00, 1.066200548145842e+00}},
  }};
  return s;
}

constexpr double kGmPluto = 9.7550000000000000e+02;  // BODY9_GM
// Standish, Table 1: a [au], e, I, L, long. of perihelion, long. of node [deg] at J2000.
constexpr double kPlutoA = 39.48211675, kPlutoE = 0.24882730, kPlutoI = 17.14001206, kPlutoL = 238.92903833,
                 kPlutoPeri = 224.06891629, kPlutoNode = 110.30393684;

using Vec = std::array<double, 3>;

Vec icrf_to_ecliptic(const Vec& a) {
  const double eps = kObliquityArcsec / 3600.0 * std::numbers::pi / 180.0;
  const double c = std::cos(eps), s = std::sin(eps);
  return {a[0], c * a[1] + s * a[2], -s * a[1] + c * a[2]};
}

// Heliocentric ecliptic state (au, au/day) from Keplerian elements; mu in au^3 / day^2.
void kepler_state(double mu, Vec& r, Vec& v) {
  const double deg = std::numbers::pi / 180.0;
  const double a = kPlutoA, e = kPlutoE;
  const double incl = kPlutoI * deg, node = kPlutoNode * deg, argp = (kPlutoPeri - kPlutoNode) * deg;
  const double mean = std::remainder((kPlutoL - kPlutoPeri) * deg, 2.0 * std::numbers::pi);
  double ecc = mean;
  for (int it = 0; it < 50; ++it) ecc -= (ecc - e * std::sin(ecc) - mean) / (1.0 - e * std::cos(ecc));
  const double b = a * std::sqrt(1.0 - e * e);
  const double n = std::sqrt(mu / (a * a * a));
  const double edot = n / (1.0 - e * std::cos(ecc));
  const double xp = a * (std::cos(ecc) - e), yp = b * std::sin(ecc);
  const double vxp = -a * std::sin(ecc) * edot, vyp = b * std::cos(ecc) * edot;
  // r = Rz(node) Rx(incl) Rz(argp) (xp, yp, 0)
  const double co = std::cos(node), so = std::sin(node), ci = std::cos(incl), si = std::sin(incl);
  const double cw = std::cos(argp), sw = std::sin(argp);
  const double p[3] = {co * cw - so * sw * ci, so * cw + co * sw * ci, sw * si};
  const double q[3] = {-co * sw - so * cw * ci, -so * sw + co * cw * ci, cw * si};
  for (int k = 0; k < 3; ++k) {
    r[k] = xp * p[k] + yp * q[k];
    v[k] = vxp * p[k] + vyp * q[k];
  }
}

}  // namespace

Particles<double> make_solar_system(const IcRequest& req) {
  if (req.n != 10) {
    throw_input_error("n: solar-system has exactly 10 bodies (the Sun, eight planets, Pluto); set n = 10 (got " +
                      std::to_string(req.n) + ")");
  }
  const double year_s = constants::gaussian_year_s();
  const double to_au = 1.0 / kAuKm;
  const double to_au_per_year = year_s / kAuKm;
  const double gm_sun = horizons_states()[0].gm;
  Particles<double> p;
  p.resize(10);
  for (std::size_t i = 0; i < 9; ++i) {
    const HorizonsState& b = horizons_states()[i];
    Vec r = b.r, v = b.v;
    if (i == 3) {  // Earth -> Earth-Moon barycentre
      const double f = kGmMoon / (kGmEarth + kGmMoon);
      for (int k = 0; k < 3; ++k) {
        r[k] += f * kMoonR[k];
        v[k] += f * kMoonV[k];
      }
    }
    const Vec re = icrf_to_ecliptic(r), ve = icrf_to_ecliptic(v);
    p.x[i] = re[0] * to_au;
    p.y[i] = re[1] * to_au;
    p.z[i] = re[2] * to_au;
    p.vx[i] = ve[0] * to_au_per_year;
    p.vy[i] = ve[1] * to_au_per_year;
    p.vz[i] = ve[2] * to_au_per_year;
    p.m[i] = b.gm / gm_sun;
  }
  // Pluto: heliocentric from its elements, plus the Sun's barycentric state.
  const double k2 = constants::gaussian_k * constants::gaussian_k;  // au^3 / day^2 per Msun
  Vec r, v;
  kepler_state(k2 * (1.0 + kGmPluto / gm_sun), r, v);
  const double days_per_year = year_s / constants::day_s;
  p.x[9] = p.x[0] + r[0];
  p.y[9] = p.y[0] + r[1];
  p.z[9] = p.z[0] + r[2];
  p.vx[9] = p.vx[0] + v[0] * days_per_year;
  p.vy[9] = p.vy[0] + v[1] * days_per_year;
  p.vz[9] = p.vz[0] + v[2] * days_per_year;
  p.m[9] = kGmPluto / gm_sun;
  for (std::size_t i = 0; i < 10; ++i) p.id[i] = i;
  // Components (IcInfo::components): the Sun 0 "star", the planets 1 "planet", Pluto 2 "dwarf-planet".
  for (std::size_t i = 1; i < 9; ++i) p.component[i] = 1;
  p.component[9] = 2;
  centre(p);
  return p;
}

const char* solar_system_body_name(std::size_t i) {
  static const char* names[10] = {"Sun",    "Mercury", "Venus",  "Earth-Moon barycentre", "Mars",
                                  "Jupiter", "Saturn",  "Uranus", "Neptune",               "Pluto"};
  return i < 10 ? names[i] : "";
}

}  // namespace nbody
