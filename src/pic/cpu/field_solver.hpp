#pragma once
// Maxwell solvers on the Yee grid, one interface: B is advanced in two half steps around the
// particle push and E in one step with the current (see PicSimulation::step):
//   B^{n+1/2} = B^n - dt/2 curl* E^n;  E^{n+1} = E^n + dt (curl B^{n+1/2} - J^{n+1/2});
//   B^{n+1} = B^{n+1/2} - dt/2 curl* E^{n+1}.
// The E update always uses the Yee curl, so div(curl B) = 0 holds discretely and Esirkepov's
// current keeps Gauss's law. curl* is the Yee curl (kind yee) or the Cole-Karkkainen curl
// (kind ck): each derivative smoothed over the transverse neighbours,
//   d*_x f = [alpha_x D_x f(j) + beta_xy (D_x f(j+1) + D_x f(j-1))] / dx, and the same for y,
// with the coefficients of Cowan et al. (2013), which makes the scheme stable at c dt = min(dx, dy)
// and free of dispersion along the axis of the smaller cell.
#include <functional>
#include <string>

#include "pic/physics/field_stencils.hpp"
#include "pic/physics/grid.hpp"

namespace nbody::pic {

enum class SolverKind { yee, ck };
enum class FieldBoundary { periodic, open };  // open: first-order Mur absorbing (and injecting), optionally with a PML inside

struct FieldBoundaries {
  FieldBoundary x = FieldBoundary::periodic;
  FieldBoundary y = FieldBoundary::periodic;
  int pml_cells_x = 0;  // an open x axis: a PML of this many cells inside Mur's boundary (0: none)
};

// The incident wave at the left boundary (x = x0) for injection: Ey and Ez at (x, y, t).
using IncidentField = std::function<void(double x, double y, double t, double& ey, double& ez)>;

struct CurlCoefficients {
  double alpha_x = 1, beta_xy = 0;  // D_x smoothed along y
  double alpha_y = 1, beta_yx = 0;  // D_y smoothed along x
};

CurlCoefficients curl_coefficients(SolverKind kind, double dx, double dy);
// The largest stable dt (c = 1): the Yee Courant limit 1/sqrt(1/dx^2 + 1/dy^2), or min(dx, dy)
// for the Cole-Karkkainen solver.
double max_stable_dt(SolverKind kind, double dx, double dy);
// The limit with a plasma of frequency omega_p: the leapfrog field-plasma system is stable while
// (dt/2)^2 (K_max^2 + omega_p^2) <= 1, K_max the largest discrete curl-curl wavenumber, so
// dt <= 1 / sqrt(1/d^2 + omega_p^2 / 4) with 1/d^2 = 1/dx^2 + 1/dy^2 (Yee) or 1/min(dx,dy)^2 (CK).
// At c dt = dx a solver that is exact along x has omega dt = pi at the Nyquist wave, and any
// plasma makes it grow: docs/pic.md.
double max_stable_dt_plasma(SolverKind kind, double dx, double dy, double omega_p);
// The discrete dispersion relation: omega of a vacuum plane wave (kx, ky) on the grid.
// Returns a negative value where the scheme is unstable for that wave (|sin(omega dt/2)| > 1).
double discrete_omega(SolverKind kind, double dx, double dy, double dt, double kx, double ky);

// A rank's block of the grid (pic/domain.hpp): a side that is a cut between ranks has its guard
// cells from the neighbour and is updated like an interior point; Mur's condition and the laser
// act only on the global edges. fill_guards: `exchange` (the x guards at x cuts), the periodic x
// copies, then `exchange_y` (the y guards at y cuts, every column: the corners), the periodic y
// copies.
struct SlabSides {
  bool cut_lo = false, cut_hi = false;      // along x
  bool cut_y_lo = false, cut_y_hi = false;  // along y
  int i_offset = 0;   // the global x index of the local column 0 (the PML's depth)
  int j_offset = 0;   // the global y index of the local row 0 (the laser's y; the geometry's y0 is the whole grid's)
  int global_nx = 0;  // the whole grid's nx (the PML's right layer)
  std::function<void(Fields&)> exchange;    // fills the x guards of E and B from the neighbours
  std::function<void(Fields&)> exchange_y;  // fills the y guards of E and B from the neighbours
};

// Copies periodic images into the guard cells of one array (x first, then y over the full x
// range, so the corners get their images).
void copy_periodic_guards(const FieldView& v, int nx, int ny, bool periodic_x, bool periodic_y);

class MaxwellSolver {
 public:
  // laser_left: a laser enters at the left boundary (no PML layer there).
  MaxwellSolver(SolverKind kind, const GridGeometry& geom, FieldBoundaries bc, bool laser_left = false);
  [[nodiscard]] const PmlLayer& pml() const { return pml_; }
  [[nodiscard]] SolverKind kind() const { return kind_; }
  [[nodiscard]] const FieldBoundaries& boundaries() const { return bc_; }
  // Makes this solver work on one rank's slab (the grid given to the constructor is the slab's).
  void set_slab(SlabSides s);

  // dt: this half step; pml_update: advance the PML memories by 2 dt (the second half step).
  void advance_b(Fields& f, double dt, bool pml_update = true) const;
  // t: the time at the start of the step (for the incident wave at the left boundary).
  void advance_e(Fields& f, double dt, double t, const IncidentField* incident) const;
  // Copies periodic images into the guard cells of the field components.
  void fill_guards(Fields& f) const;
  // Adds the current (and charge) deposited in the guard cells to their periodic images, or drops
  // it beyond an open boundary; then refreshes the guards.
  void fold_sources(Fields& f, int first_component, int last_component) const;

 private:
  SolverKind kind_;
  GridGeometry g_;
  FieldBoundaries bc_;
  CurlCoefficients c_;
  PmlLayer pml_;
  SlabSides slab_;
  // The x sides: open (Mur) unless a cut; free (neighbour values in the guards) when periodic or a cut.
  [[nodiscard]] bool open_lo() const { return bc_.x == FieldBoundary::open && !slab_.cut_lo; }
  [[nodiscard]] bool open_hi() const { return bc_.x == FieldBoundary::open && !slab_.cut_hi; }
  [[nodiscard]] bool periodic_copy_x() const { return bc_.x == FieldBoundary::periodic && !slab_.cut_lo && !slab_.cut_hi; }
  // The y sides, as the x ones.
  [[nodiscard]] bool open_y_lo() const { return bc_.y == FieldBoundary::open && !slab_.cut_y_lo; }
  [[nodiscard]] bool open_y_hi() const { return bc_.y == FieldBoundary::open && !slab_.cut_y_hi; }
  [[nodiscard]] bool periodic_copy_y() const {
    return bc_.y == FieldBoundary::periodic && !slab_.cut_y_lo && !slab_.cut_y_hi;
  }
};

PmlLayer make_pml(const GridGeometry& g, const FieldBoundaries& bc, bool laser_left);

const char* solver_name(SolverKind k);

}  // namespace nbody::pic
