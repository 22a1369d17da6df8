// Unit systems: G derived from the defining constants, two-body orbits that close after the
// period the units predict, conversion of initial conditions, the precedence of an explicit G.
#include <cmath>
#include <numbers>

#include "core/units.hpp"
#include "ic/ic.hpp"
#include "io/particle_file.hpp"
#include "model_stats.hpp"
#include "nbody/error.hpp"
#include "nbody/simulation.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(Units, GravitationalConstantsAreDerivedFromTheDefiningConstants) {
  // galactic: G Msun / (kpc (km/s)^2) from SI values (CODATA 2018 G, IAU 2015 nominal
  // Msun = GMsun / G, kpc = 1000 * 648000 / pi au): 4.30092e-6.
  const double au_m = 1.495978707e11;
  const double kpc_m = 1e3 * 648000.0 / kPi * au_m;
  const double msun_kg = 1.3271244e20 / 6.67430e-11;
  const double g_galactic = 6.67430e-11 * msun_kg / (kpc_m * 1e6);
  NBODY_MEASURED("G galactic = %.9g kpc (km/s)^2 / Msun; G solar = %.9g au^3 / (Msun yr^2)", unit_system("galactic").G,
                 unit_system("solar").G);
  EXPECT_NEAR(unit_system("galactic").G / g_galactic, 1.0, 1e-12);
  EXPECT_NEAR(unit_system("galactic").G, 4.30091e-6, 0.00001e-6);
  // solar: G = 4 pi^2 au^3 / (Msun yr^2) with the Gaussian year 2 pi / k days; G from GMsun and
  // the SI au and that year agrees to 1e-8 (the au was defined from k).
  EXPECT_EQ(unit_system("solar").G, 4.0 * kPi * kPi);
  const double year_s = constants::gaussian_year_s();
  EXPECT_NEAR(year_s / 86400.0, 365.2568983, 1e-7);
  const double g_solar_si = 1.32712440041e20 * year_s * year_s / (au_m * au_m * au_m);
  EXPECT_NEAR(g_solar_si / (4.0 * kPi * kPi), 1.0, 1e-8);
  EXPECT_EQ(unit_system("henon").G, 1.0);
}

TEST(Units, CgsFactorsAreConsistent) {
  for (const auto& name : unit_system_names()) {
    const UnitSystemCgs u = unit_system_cgs(name);
    EXPECT_NEAR(u.UnitTime_in_s, u.UnitLength_in_cm / u.UnitVelocity_in_cm_per_s, 1e-12 * u.UnitTime_in_s) << name;
    // G in the system = G_cgs * M_u * T_u^2 / L_u^3 (henon has no physical scale).
    if (u.physical) {
      const double g = constants::G_cgs * u.UnitMass_in_g * u.UnitTime_in_s * u.UnitTime_in_s /
                       std::pow(u.UnitLength_in_cm, 3);
      EXPECT_NEAR(g / unit_system(name).G, 1.0, 1e-8) << name;
    }
  }
  EXPECT_FALSE(unit_system_cgs("henon").physical);
  EXPECT_NEAR(unit_system_cgs("galactic").UnitTime_in_s / (1e9 * 365.25 * 86400.0), 0.977792, 1e-6);  // Gyr
  EXPECT_NEAR(unit_system_cgs("galactic").UnitLength_in_cm, 3.0856775814913673e21, 1e6);
  EXPECT_THROW((void)unit_system("cgs"), Error);
}

TEST(Units, ExplicitGravitationalConstantWins) {
  RunConfig cfg;
  cfg.units = "solar";
  EXPECT_EQ(effective_gravitational_constant(cfg), 4.0 * kPi * kPi);
  cfg.gravitational_constant = 2.5;
  EXPECT_EQ(effective_gravitational_constant(cfg), 2.5);
  cfg.units = "henon";
  cfg.gravitational_constant = 0;
  EXPECT_EQ(effective_gravitational_constant(cfg), 1.0);
}

// A test body on a circular orbit of radius a around a mass M; returns how far it is from its
// start after `periods` predicted periods 2 pi sqrt(a^3 / G M), relative to a.
double circular_orbit_closure(const std::string& units, double mass, double a, double predicted_period) {
  Particles<double> p;
  p.resize(2);
  const double m_test = 1e-12 * mass;
  const double g = unit_system(units).G;
  const double v = std::sqrt(g * (mass + m_test) / a);
  p.x = {0.0, a};
  p.y = {0.0, 0.0};
  p.z = {0.0, 0.0};
  p.vx = {0.0, 0.0};
  p.vy = {0.0, v};
  p.vz = {0.0, 0.0};
  p.m = {mass, m_test};
  p.id = {0, 1};
  RunConfig cfg;
  cfg.units = units;
  cfg.device = "cpu";
  cfg.gravity = "reference";
  cfg.precision = "fp64";
  cfg.softening = 0;
  cfg.steps = 4000;
  cfg.dt = predicted_period / double(cfg.steps);
  auto sim = Simulation::create(cfg, p);
  EXPECT_EQ(sim->config().gravitational_constant, g);
  sim->advance(cfg.steps);
  const auto end = sim->particles();
  return std::hypot(end.x[1] - end.x[0] - a, end.y[1] - end.y[0], end.z[1] - end.z[0]) / a;
}

TEST(Units, OneAuAroundOneSolarMassTakesOneYearInSolarUnits) {
  // Period 2 pi sqrt(1 / 4 pi^2) = 1 year. Leapfrog's phase error after one orbit at 4000 steps
  // is about 2 pi (2 pi / 4000)^2 / 24 = 6e-7.
  const double miss = circular_orbit_closure("solar", 1.0, 1.0, 1.0);
  NBODY_MEASURED("solar: 1 au orbit after 1 yr misses by %.2e au", miss);
  EXPECT_LT(miss, 1e-5);
}

TEST(Units, GalacticCircularOrbitMatchesItsPeriodInGyr) {
  // 1e11 Msun, r = 8 kpc: v = sqrt(G M / r) = 231.9 km/s, period 2 pi r / v = 0.21679 time
  // units = 0.2120 Gyr (1 time unit = 0.977792 Gyr).
  const double g = unit_system("galactic").G;
  const double v = std::sqrt(g * 1e11 / 8.0);
  const double period = 2.0 * kPi * 8.0 / v;
  const double gyr = period * unit_system_cgs("galactic").UnitTime_in_s / (1e9 * 365.25 * 86400.0);
  NBODY_MEASURED("galactic: v_c = %.3f km/s, period %.5f time units = %.5f Gyr", v, period, gyr);
  EXPECT_NEAR(v, 231.87, 0.01);
  EXPECT_NEAR(gyr, 0.21198, 1e-4);
  const double miss = circular_orbit_closure("galactic", 1e11, 8.0, period);
  EXPECT_LT(miss, 1e-5);
}

TEST(Units, ModelsAreScaledToPhysicalUnits) {
  // Plummer in galactic units: 1e5 Msun with a virial radius of 0.01 kpc. Masses, lengths and
  // velocities scale by M, L and sqrt(G M / L); the virial ratio is unchanged and the energy
  // becomes E_henon G M^2 / L.
  RunConfig model;
  model.units = "galactic";
  model.mass_scale = 1e5;
  model.length_scale = 0.01;
  const auto henon = make_initial_conditions({"plummer", 512, 3});
  const auto phys = make_initial_conditions({"plummer", 512, 3, model});
  const double g = unit_system("galactic").G;
  const double fv = std::sqrt(g * 1e5 / 0.01);
  for (std::size_t i = 0; i < 512; ++i) {
    ASSERT_NEAR(phys.m[i], henon.m[i] * 1e5, 1e-9);
    ASSERT_NEAR(phys.x[i], henon.x[i] * 0.01, 1e-15);
    ASSERT_NEAR(phys.vy[i], henon.vy[i] * fv, 1e-12 * fv);
  }
  // Missing scales are an input error naming them.
  RunConfig no_scale;
  no_scale.units = "solar";
  try {
    (void)make_initial_conditions({"king", 100, 1, no_scale});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(std::string(e.what()).find("mass_scale"), std::string::npos);
  }
}

TEST(Units, SolarSystemConvertsToGalacticUnits) {
  RunConfig solar, galactic;
  solar.units = "solar";
  galactic.units = "galactic";
  const auto a = make_initial_conditions({"solar-system", 10, 1, solar});
  const auto b = make_initial_conditions({"solar-system", 10, 1, galactic});
  const double au_per_kpc = 1e3 * 648000.0 / kPi;
  const double kms_per_au_yr = 1.495978707e8 / constants::gaussian_year_s();
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_NEAR(b.x[i] * au_per_kpc, a.x[i], 1e-12 * std::fabs(a.x[i]) + 1e-15);
    EXPECT_NEAR(b.vy[i], a.vy[i] * kms_per_au_yr, 1e-12 * std::fabs(b.vy[i]) + 1e-15);
    EXPECT_EQ(b.m[i], a.m[i]);
  }
  NBODY_MEASURED("Earth's orbital speed %.4f km/s", std::hypot(b.vx[3] - b.vx[0], b.vy[3] - b.vy[0]));
  EXPECT_NEAR(std::hypot(b.vx[3] - b.vx[0], b.vy[3] - b.vy[0]), 30.29, 0.02);  // near perihelion
}

// /Units of an HDF5 snapshot: the run's unit system in cgs (all 1 for henon), and /Parameters
// records the unit system and the resolved G.
TEST(Units, Hdf5SnapshotsRecordTheRunsUnits) {
  if (!hdf5_available()) GTEST_SKIP() << "skipped: built without HDF5";
  const std::string dir = temp_dir("units_hdf5");
  for (const std::string units : {"henon", "galactic", "solar"}) {
    const std::string out = dir + "/" + units;
    // The scales apply to physical units only (given with henon they are refused).
    const std::string scales = units == "henon" ? "" : " --mass-scale 1e5 --length-scale 0.01";
    const auto r = run_nbody("run --ic plummer -n 64 --steps 1 --backend cpu --snapshot-format hdf5 --units " + units +
                             scales + " --out " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto file = read_particle_file(out + "/snapshot_000.hdf5");
    ASSERT_TRUE(file.info.units.has_value()) << units;
    EXPECT_EQ(*file.info.units, unit_system_cgs(units)) << units;
    EXPECT_EQ(file.info.units->physical, units != "henon");
  }
  // nbody convert keeps them from HDF5 to HDF5.
  const auto c = run_nbody("convert " + dir + "/galactic/snapshot_000.hdf5 " + dir + "/converted.hdf5");
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(*read_particle_file(dir + "/converted.hdf5").info.units, unit_system_cgs("galactic"));
  // Without a configuration or units they are 1.
  const std::string plain = dir + "/plain.hdf5";
  write_particle_file(plain, ParticleFormat::hdf5, random_particles(8, 1), {Precision::fp64, 0, nullptr});
  EXPECT_EQ(*read_particle_file(plain).info.units, UnitSystemCgs{});
}

}  // namespace
}  // namespace nbody::test
