// The parameter schema: TOML round trip, flag and file parsing, validation messages.
#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>

#include "io/atomic_file.hpp"
#include "nbody/config.hpp"
#include "nbody/error.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(Config, TomlRoundTripIsExact) {
  RunConfig cfg;
  cfg.ic = "cube";
  cfg.n = 12345;
  cfg.seed = 987654321;
  cfg.dt = 0.1 + 0.2;  // not exactly representable in few digits
  cfg.softening = std::sqrt(1e-9);
  cfg.out = "dir with \"quotes\" and \\ backslash";
  cfg.diag_every = 7;
  const std::string dir = temp_dir("toml");
  write_file_atomic(dir + "/c.toml", to_toml(cfg));
  RunConfig back;
  apply_toml_file(back, dir + "/c.toml");
  EXPECT_EQ(back, cfg);
}

TEST(Config, EveryParameterHasAFlagHelpAndRange) {
  for (const auto& spec : run_params()) {
    EXPECT_FALSE(spec.help.empty()) << spec.key;
    EXPECT_EQ(spec.flag().substr(0, 2), "--");
    if (spec.kind != ParamKind::text) EXPECT_LE(spec.min, spec.max) << spec.key;
  }
  EXPECT_NE(find_run_param("dt"), nullptr);
  EXPECT_EQ(find_run_param("nosuch"), nullptr);
}

TEST(Config, BadValuesNameTheParameter) {
  RunConfig cfg;
  const auto* dt = find_run_param("dt");
  const auto* n = find_run_param("n");
  const auto* ic = find_run_param("ic");
  EXPECT_NE(input_error_of([&] { set_param_from_text(cfg, *dt, "0", "--dt"); }).find("--dt: must be > 0"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { set_param_from_text(cfg, *dt, "nan", "--dt"); }).find("finite"), std::string::npos);
  EXPECT_NE(input_error_of([&] { set_param_from_text(cfg, *dt, "1e999", "--dt"); }).find("--dt"), std::string::npos);
  EXPECT_NE(input_error_of([&] { set_param_from_text(cfg, *n, "12.5", "--n"); }).find("whole number"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { set_param_from_text(cfg, *n, "0", "--n"); }).find("--n"), std::string::npos);
  EXPECT_NE(input_error_of([&] { set_param_from_text(cfg, *ic, "disk", "--ic"); }).find("choose from"),
            std::string::npos);
  EXPECT_EQ(cfg, RunConfig{});  // nothing was stored
}

TEST(Config, ValidateRejectsAConfigBuiltInCode) {
  RunConfig cfg;
  cfg.steps = -3;
  EXPECT_NE(input_error_of([&] { validate(cfg); }).find("steps"), std::string::npos);
}

TEST(Config, TomlFileErrorsNameFileAndKey) {
  const std::string data = NBODY_TEST_DATA;
  RunConfig cfg;
  EXPECT_NE(input_error_of([&] { apply_toml_file(cfg, data + "/malformed.toml"); }).find("malformed.toml:2"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { apply_toml_file(cfg, data + "/unknown_key.toml"); }).find("unknown key 'timestep'"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { apply_toml_file(cfg, data + "/wrong_type.toml"); }).find("dt"), std::string::npos);
  EXPECT_NE(input_error_of([&] { apply_toml_file(cfg, data + "/missing.toml"); }).find("missing.toml"),
            std::string::npos);
}

}  // namespace
}  // namespace nbody::test
