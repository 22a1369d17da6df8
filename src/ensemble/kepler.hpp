#pragma once
// Two-body orbits: Kepler's equation, orbital elements to a relative state and back (G = 1,
// total mass mu). Elliptic (e < 1) and hyperbolic (e > 1) orbits; angles in radians.
namespace nbody::ensemble {

struct Elements {
  double a = 1, e = 0, inc = 0;         // semi-major axis (< 0 for a hyperbola), eccentricity, inclination
  double node = 0, peri = 0, mean = 0;  // longitude of the node, argument of pericentre, mean anomaly
};

// The eccentric anomaly E of M = E - e sin E (e < 1), to the last bits (Newton from a start
// that converges for every e < 1 and M).
double solve_kepler(double mean_anomaly, double e);
// The hyperbolic anomaly H of M = e sinh H - H (e > 1).
double solve_kepler_hyperbolic(double mean_anomaly, double e);

// The relative position and velocity of the orbit with these elements about mass mu.
void elements_to_state(const Elements& el, double mu, double pos[3], double vel[3]);
// The elements of a relative state (inclination 0: node 0; circular: pericentre 0); the angles of
// an ellipse in [0, 2 pi).
Elements state_to_elements(const double pos[3], const double vel[3], double mu);

}  // namespace nbody::ensemble
