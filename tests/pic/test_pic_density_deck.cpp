// Densities of a PIC deck from an expression of x and y (muparser) or from a table file: the
// loaded particles' charge against the analytic profile, and one error line for each bad one.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "pic/driver/config.hpp"
#include "pic_test_util.hpp"

namespace nbody::pic {
namespace {

constexpr double kLambda = 2 * kPi;

// A 4 x 2 lambda periodic box at 16 cells per lambda, one electron species with the profile's
// keys `species` (regular 4 x 4 sub-lattice).
std::string deck_with(const std::string& species) {
  return "[grid]\nnx = 64\nny = 32\ndx = 0.0625\ndy = 0.0625\ny0 = -1\n[time]\nsteps = 1\n"
         "[[species]]\nname = \"electron\"\nppc_x = 4\nppc_y = 4\nregular = true\n" +
         species + "\n";
}

std::string error_of(const std::string& deck, const std::string& name = "density.toml") {
  try {
    (void)read_pic_config_text(deck, name, {});
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

// Each particle's weight is n(x_p, y_p) dx dy / ppc of the analytic n (to rounding); the charge per
// cell over the cell's area is the analytic density at the cell centre within the midpoint rule's
// error (a bound per test: the table, linear in x on a symmetric sub-lattice, to rounding), and the cells that hold particles are those whose centre has n > 0.
void check_against(const PicConfig& c, double (*analytic)(double, double), double bound) {
  const PicSimulation sim = build_pic_simulation(c);
  const Species& e = sim.species()[0];
  const double dx = c.dx * kLambda, dy = c.dy * kLambda, x0 = c.x0 * kLambda, y0 = c.y0 * kLambda;
  ASSERT_GT(e.size(), 0u);
  std::vector<double> per_cell(std::size_t(c.nx) * std::size_t(c.ny), 0.0);
  double worst_w = 0;
  for (std::size_t p = 0; p < e.size(); ++p) {
    const double n = analytic(e.x[p] / kLambda, e.y[p] / kLambda);
    worst_w = std::max(worst_w, std::fabs(e.w[p] - n * dx * dy / 16) / (dx * dy / 16) / 8);  // (densities up to 8)
    const int i = int(std::floor((e.x[p] - x0) / dx)), j = int(std::floor((e.y[p] - y0) / dy));
    per_cell[std::size_t(j) * std::size_t(c.nx) + std::size_t(i)] += e.w[p];
  }
  EXPECT_LT(worst_w, 1e-12);
  double peak = 0, worst = 0;
  for (int j = 0; j < c.ny; ++j)
    for (int i = 0; i < c.nx; ++i) {
      const double n = analytic(c.x0 + (i + 0.5) * c.dx, c.y0 + (j + 0.5) * c.dy);
      peak = std::max(peak, n);
      const double got = per_cell[std::size_t(j) * std::size_t(c.nx) + std::size_t(i)] / (dx * dy);
      if (n <= 0) EXPECT_EQ(got, 0.0) << "cell " << i << ", " << j;
      worst = std::max(worst, std::fabs(got - n));
    }
  std::printf("charge per cell within %.3g of the analytic density (peak %.3g)\n", worst, peak);
  EXPECT_LT(worst, bound * peak);
}

double gaussian_slab(double x, double y) { return 4 * std::exp(-((x - 2) / 0.5) * ((x - 2) / 0.5)) * (1 + 0.5 * std::sin(2 * kPi * y)); }

TEST(DensityDeck, ExpressionGivesTheAnalyticProfile) {
  const PicConfig c = read_pic_config_text(
      deck_with("profile = \"expression\"\ndensity_expr = \"4*exp(-((x-2)/0.5)^2)*(1 + 0.5*sin(2*_pi*y))\""), "d.toml", {});
  check_against(c, gaussian_slab, 5e-3);  // (the 4 x 4 points' mean against the centre: measured 0.32%)
  // The time step's plasma limit sees the expression's largest value at the grid's cell centres.
  double peak = 0;
  for (int j = 0; j < c.ny; ++j)
    for (int i = 0; i < c.nx; ++i) peak = std::max(peak, gaussian_slab((i + 0.5) / 16, -1 + (j + 0.5) / 16));
  EXPECT_NEAR(c.species[0].expression_peak, peak, 1e-12);
}

// The 1D table of the file, piecewise linear in x and zero outside [0.5, 3.5] lambda.
double table_profile(double x, double) {
  const double xs[4] = {0.5, 1.5, 2.5, 3.5}, ns[4] = {0, 2, 2, 0.5};
  if (x < xs[0] || x > xs[3]) return 0;
  int k = 1;
  while (k < 3 && x >= xs[k]) ++k;
  const double a = (x - xs[k - 1]) / (xs[k] - xs[k - 1]);
  return (1 - a) * ns[k - 1] + a * ns[k];
}

TEST(DensityDeck, TableFileGivesTheLinearProfile) {
  const auto dir = test::temp_dir("density_table");
  std::ofstream(dir / "n.csv") << "x_lambda, n_nc\n# a ramp and a plateau\n0.5, 0\n1.5, 2\n\n2.5, 2\n3.5, 0.5\n";
  const std::string deck_path = (dir / "deck.toml").string();
  // (a relative path is read from the deck's directory, and the deck as run names it absolutely)
  const PicConfig c = read_pic_config_text(deck_with("profile = \"table\"\ntable_file = \"n.csv\""), deck_path, {});
  EXPECT_NE(c.deck.find((dir / "n.csv").string()), std::string::npos) << c.deck;
  check_against(c, table_profile, 1e-12);
}

TEST(DensityDeck, BadExpressionsAndTablesNameTheirKey) {
  const std::string syntax = error_of(deck_with("profile = \"expression\"\ndensity_expr = \"4*exp(-(x-2)^2\""));
  EXPECT_NE(syntax.find("pic config 'density.toml': species[0].density_expr: '4*exp(-(x-2)^2': "), std::string::npos) << syntax;
  const std::string unknown = error_of(deck_with("profile = \"expression\"\ndensity_expr = \"2*z\""));
  EXPECT_NE(unknown.find("species[0].density_expr: '2*z': "), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("z"), unknown.rfind("'2*z'")) << unknown;
  const std::string negative = error_of(deck_with("profile = \"expression\"\ndensity_expr = \"x-2\""));
  EXPECT_NE(negative.find("species[0].density_expr: 'x-2' is -1.96875 at x = 0.03125, y = -0.96875"), std::string::npos)
      << negative;
  EXPECT_NE(error_of(deck_with("profile = \"expression\"")).find("species[0].density_expr: is needed"), std::string::npos);
  EXPECT_NE(error_of(deck_with("density = 1\ndensity_expr = \"1\"")).find("species[0].density_expr: is read only with"),
            std::string::npos);

  const auto dir = test::temp_dir("density_bad_tables");
  const std::string deck_path = (dir / "deck.toml").string();
  auto table_error = [&](const std::string& rows) {
    std::ofstream(dir / "t.csv") << rows;
    return error_of(deck_with("profile = \"table\"\ntable_file = \"t.csv\""), deck_path);
  };
  const std::string file = "'" + (dir / "t.csv").string() + "'";
  const std::string missing = error_of(deck_with("profile = \"table\"\ntable_file = \"none.csv\""), deck_path);
  EXPECT_NE(missing.find("species[0].table_file: '" + (dir / "none.csv").string() + "' cannot be opened"), std::string::npos)
      << missing;
  EXPECT_NE(table_error("x,n\n0,1\n1,two\n").find("species[0].table_file: " + file + " line 3: '1,two' is not two numbers"),
            std::string::npos);
  EXPECT_NE(table_error("0,1\n1,1,5\n").find(file + " line 2: '1,1,5' is not two numbers"), std::string::npos);
  EXPECT_NE(table_error("0,1\n2,1\n1,1\n").find(file + " line 3: x = 1 does not increase (the line before has 2)"),
            std::string::npos);
  EXPECT_NE(table_error("0,1\n2,-0.5\n").find(file + " line 2: n = -0.5 is negative"), std::string::npos);
  EXPECT_NE(table_error("0,1\n").find(file + " has 1 rows: at least 2"), std::string::npos);
}

}  // namespace
}  // namespace nbody::pic
