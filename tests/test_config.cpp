// The parameter schema: TOML round trip, flag and file parsing, validation messages.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>

#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "core/strings.hpp"
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


// ---- sections ------------------------------------------------------------------------

TEST(ConfigSections, RunConfigIsComposedOfItsSections) {
  static_assert(std::is_base_of_v<ModelSection, RunConfig> && std::is_base_of_v<GravitySection, RunConfig> &&
                std::is_base_of_v<IntegratorSection, RunConfig> && std::is_base_of_v<OutputSection, RunConfig> &&
                std::is_base_of_v<RunSection, RunConfig>);
  RunConfig cfg;
  static_cast<ModelSection&>(cfg).king_w0 = 9;
  EXPECT_EQ(cfg.king_w0, 9);
  EXPECT_NE(cfg, RunConfig{});
  // Every parameter is in the section its field is in, and the sections are the TOML tables.
  std::vector<std::string> names;
  for (const auto& s : run_sections()) names.emplace_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"run", "model", "gravity", "integrator", "output"}));
  EXPECT_EQ(find_run_param("dt")->section, "integrator");
  EXPECT_EQ(find_run_param("king_w0")->section, "model");
  EXPECT_EQ(find_run_param("device")->section, "gravity");
  EXPECT_EQ(find_run_param("snapshot_format")->section, "output");
  EXPECT_EQ(find_run_param("steps")->section, "run");
}

TEST(ConfigSections, MayChangeOnResumeIsAnAttribute) {
  std::vector<std::string> may;
  for (const auto& spec : run_params()) {
    if (spec.may_change_on_resume) may.emplace_back(spec.key);
  }
  std::sort(may.begin(), may.end());
  EXPECT_EQ(may, (std::vector<std::string>{"checkpoint_every", "checkpoint_every_s", "diag_every", "snapshot_every",
                                           "snapshot_every_t", "steps", "t_end", "threads"}));
}

TEST(ConfigSections, BackendIsAnAliasOfDeviceAndGravityNeverWritten) {
  const ParamSpec* backend = find_run_param("backend");
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(backend->is_alias());
  for (const auto& spec : run_params()) EXPECT_NE(spec.key, "backend");
  RunConfig cfg;
  set_param_from_text(cfg, *backend, "cpu-reference", "--backend");
  EXPECT_EQ(cfg.device, "cpu");
  EXPECT_EQ(cfg.gravity, "reference");
  EXPECT_EQ(param_value_text(cfg, *backend), "cpu-reference");
  set_param_from_text(cfg, *backend, "cuda", "--backend");
  EXPECT_EQ(cfg.device, "cuda");
  EXPECT_EQ(cfg.gravity, "direct");
  EXPECT_NE(input_error_of([&] { set_param_from_text(cfg, *backend, "opencl", "--backend"); }).find("--backend"),
            std::string::npos);
  // config.toml and the checkpoint's lines hold device and gravity, never the alias as a key.
  for (const auto& line : lines(to_toml(cfg))) EXPECT_NE(line.rfind("backend", 0), 0u) << line;
  EXPECT_EQ(config_to_lines(cfg).find("backend"), std::string::npos);
  EXPECT_NE(config_to_lines(cfg).find("device\tcuda\n"), std::string::npos);
}

TEST(ConfigSections, TheReferenceRunsOnTheCpuOnly) {
  RunConfig cfg;
  cfg.device = "cuda";
  cfg.gravity = "reference";
  const std::string err = input_error_of([&] { validate(cfg); });
  EXPECT_NE(err.find("--gravity"), std::string::npos) << err;
  EXPECT_NE(err.find("--device"), std::string::npos) << err;
}

TEST(ConfigSections, TomlIsWrittenInSections) {
  RunConfig cfg;
  cfg.dt = 0.25;
  const std::string text = to_toml(cfg);
  const auto at = [&](const std::string& s) { return text.find(s); };
  ASSERT_NE(at("[integrator]\n"), std::string::npos) << text;
  EXPECT_LT(at("[run]\n"), at("[model]\n"));
  EXPECT_LT(at("[model]\n"), at("[gravity]\n"));
  EXPECT_LT(at("[gravity]\n"), at("[integrator]\n"));
  EXPECT_LT(at("[integrator]\n"), at("\ndt = 0.25\n"));
  EXPECT_LT(at("\ndt = 0.25\n"), at("[output]\n"));
  EXPECT_NE(at("# time step [time]\ndt = 0.25\n"), std::string::npos);
}

TEST(ConfigSections, FlatAndSectionedFilesGiveTheSameConfiguration) {
  const std::string data = NBODY_TEST_DATA;
  RunConfig flat, sectioned;
  apply_toml_file(flat, data + "/flat.toml");
  apply_toml_file(sectioned, data + "/sectioned.toml");
  EXPECT_EQ(flat, sectioned);
  EXPECT_EQ(sectioned.dt, 0.0625);
  EXPECT_EQ(sectioned.king_w0, 7.5);
  EXPECT_EQ(sectioned.gravity, "reference");
  EXPECT_EQ(sectioned.device, "cpu");
  // And the same through the flags' text and through a checkpoint's lines.
  RunConfig flags;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"steps", "20"}, {"ic", "king"}, {"n", "128"}, {"king_w0", "7.5"}, {"softening", "0.02"},
           {"backend", "cpu-reference"}, {"integrator", "hermite4"}, {"dt", "0.0625"}, {"eta", "0.01"},
           {"diag_every", "4"}}) {
    set_param_from_text(flags, *find_run_param(k), v, "--" + k);
  }
  EXPECT_EQ(flags, sectioned);
  EXPECT_EQ(config_from_lines(config_to_lines(sectioned), "test"), sectioned);
  // A file written by to_toml reads back to the same configuration.
  const std::string dir = temp_dir("sections");
  write_file_atomic(dir + "/c.toml", to_toml(sectioned));
  RunConfig back;
  apply_toml_file(back, dir + "/c.toml");
  EXPECT_EQ(back, sectioned);
}

TEST(ConfigSections, SectionErrorsNameFileSectionAndKey) {
  const std::string data = NBODY_TEST_DATA;
  RunConfig cfg;
  const std::string wrong = input_error_of([&] { apply_toml_file(cfg, data + "/wrong_section.toml"); });
  EXPECT_NE(wrong.find("wrong_section.toml: [gravity] dt: belongs in [integrator]"), std::string::npos) << wrong;
  const std::string unknown = input_error_of([&] { apply_toml_file(cfg, data + "/unknown_section.toml"); });
  EXPECT_NE(unknown.find("unknown_section.toml: unknown section [physics]"), std::string::npos) << unknown;
  const std::string inapplicable = input_error_of([&] { apply_toml_file(cfg, data + "/not_applicable.toml"); });
  EXPECT_NE(inapplicable.find("not_applicable.toml: [model] king_w0: applies to --ic king only (the run uses "
                              "plummer)"),
            std::string::npos)
      << inapplicable;
  const std::string conflict = input_error_of([&] { apply_toml_file(cfg, data + "/alias_conflict.toml"); });
  EXPECT_NE(conflict.find("backend"), std::string::npos) << conflict;
  EXPECT_NE(conflict.find("[gravity] gravity"), std::string::npos) << conflict;
}

// Every config.toml lists every parameter: one that does not apply is accepted there when it holds
// its default, so a run directory's config.toml (of this release or the previous one) reads back.
TEST(ConfigSections, AnInapplicableKeyAtItsDefaultIsAccepted) {
  const std::string dir = temp_dir("inapplicable_default");
  write_file_atomic(dir + "/c.toml", "[model]\nic = \"plummer\"\nking_w0 = 6.0\n[integrator]\neta = 0.02\n");
  RunConfig cfg;
  apply_toml_file(cfg, dir + "/c.toml");
  EXPECT_EQ(cfg, RunConfig{});
}

TEST(ConfigSections, ApplicabilityOfTheModelAndIntegratorParameters) {
  RunConfig cfg;
  const auto applies = [&](const char* key) { return find_run_param(key)->applies_to(cfg); };
  EXPECT_FALSE(applies("king_w0"));
  EXPECT_FALSE(applies("virial_ratio"));
  EXPECT_FALSE(applies("mass_scale"));
  EXPECT_FALSE(applies("eta"));
  EXPECT_TRUE(applies("softening"));
  cfg.ic = "galaxy-collision";
  for (const char* k : {"disk_fraction", "bulge_fraction", "toomre_q", "pericentre", "separation", "incl1", "incl2"}) {
    EXPECT_TRUE(applies(k)) << k;
  }
  cfg.ic = "disk-galaxy";
  EXPECT_TRUE(applies("toomre_q"));
  EXPECT_FALSE(applies("pericentre"));
  cfg.ic = "shell";
  EXPECT_TRUE(applies("cluster_scale"));
  EXPECT_TRUE(applies("velocity_scale"));
  cfg.ic = "file:x.csv";
  EXPECT_FALSE(applies("king_w0"));
  cfg.units = "galactic";
  EXPECT_TRUE(applies("mass_scale"));
  EXPECT_TRUE(applies("length_scale"));
  cfg.dt_mode = "auto";
  EXPECT_TRUE(applies("eta"));
  cfg.dt_mode = "fixed";
  cfg.integrator = "hermite4";
  EXPECT_TRUE(applies("eta"));
  std::vector<GivenParam> given = {{find_run_param("king_w0"), "--king-w0", "9"}};
  EXPECT_NE(input_error_of([&] { check_given(cfg, given); }).find("--king-w0: applies to --ic king only (the run uses "
                                                                 "file:x.csv)"),
            std::string::npos);
}

// model.toml's and config.toml's strings go through toml++: quotes, backslashes and control
// characters escaped.
TEST(ConfigSections, TomlStringsAreEscaped) {
  EXPECT_EQ(toml_string("plain"), "\"plain\"");
  EXPECT_EQ(toml_string("a\"b\\c\nd\te"), "\"a\\\"b\\\\c\\nd\\te\"");
  EXPECT_EQ(toml_string(std::string("x\x01y")), "\"x\\u0001y\"");
  EXPECT_EQ(toml_real(1), "1.0");
  EXPECT_EQ(toml_real(0.15), "0.15");
}

// A checkpoint written by the previous release (flat lines, `backend` rather than device and
// gravity) decodes to the configuration the same flags give today, and so does its config.toml.
TEST(ConfigSections, AReleaseCheckpointDecodesToTheSameConfiguration) {
  const std::string run = std::string(NBODY_TEST_DATA) + "/release_run";
  const Checkpoint ck = read_checkpoint(run + "/checkpoint_0000000004.ckpt");
  RunConfig want;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"ic", "plummer"}, {"n", "64"}, {"steps", "4"}, {"checkpoint_every", "2"}, {"backend", "cpu"},
           {"precision", "fp64"}, {"snapshot_format", "csv"}, {"diag_every", "2"}, {"gravitational_constant", "1"},
           {"out", "/tmp/oldrun"}}) {
    set_param_from_text(want, *find_run_param(k), v, "--" + k);
  }
  EXPECT_EQ(ck.config, want);
  EXPECT_EQ(ck.config.device, "cpu");
  EXPECT_EQ(ck.config.gravity, "direct");
  RunConfig from_toml;
  apply_toml_file(from_toml, run + "/config.toml");
  EXPECT_EQ(from_toml, want);
}

// Every byte of outside text an error line quotes is printable: control characters, DEL, the C1
// controls and bytes that are not UTF-8 as \xNN, a backslash doubled, well-formed UTF-8 kept, and
// a long quote cut with its length.
TEST(ConfigMessages, QuotedInputIsEscapedAndCut) {
  EXPECT_EQ(quoted_text("plain"), "'plain'");
  EXPECT_EQ(quoted_text("a\x01" "b\n\x1b[31m\x7f"), "'a\\x01b\\x0a\\x1b[31m\\x7f'");
  EXPECT_EQ(quoted_text(std::string("\0z", 2)), "'\\x00z'");
  EXPECT_EQ(quoted_text("back\\slash"), "'back\\\\slash'");
  EXPECT_EQ(quoted_text("\xc3\xa9t\xc3\xa9 \xe2\x82\xac"), "'\xc3\xa9t\xc3\xa9 \xe2\x82\xac'");          // été €
  EXPECT_EQ(quoted_text("\xff\xfe\xc3"), "'\\xff\\xfe\\xc3'");                                           // not UTF-8
  EXPECT_EQ(quoted_text("\xc2\x9b" "2J"), "'\\xc2\\x9b2J'");                                             // C1 CSI
  EXPECT_EQ(quoted_text("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");                                           // a surrogate
  EXPECT_EQ(quoted_text("\xc0\xaf"), "'\\xc0\\xaf'");                                                     // overlong
  const std::string longer(5000, 'x');
  EXPECT_EQ(quoted_text(longer, 10), "'xxxxxxxxxx'... (5000 bytes)");
  EXPECT_LT(quoted_text(longer).size(), 120u);
  EXPECT_EQ(printable("a\tb"), "a\\x09b");
  // A whole line: backslashes already escaped stay as they are.
  EXPECT_EQ(printable_line("x: 'a\\\\b' \x01\n"), "x: 'a\\\\b' \\x01\\x0a");
}

// Numbers for a person: no float noise, no digits lost.
TEST(ConfigMessages, ReadableNumbers) {
  EXPECT_EQ(readable_number(1.85), "1.85");  // %.17g: 1.8500000000000001
  EXPECT_EQ(readable_number(0.1 + 0.2), "0.3");
  EXPECT_EQ(readable_number(1234.5678), "1234.5678");
  EXPECT_EQ(readable_number(2.0), "2");
  EXPECT_EQ(readable_number(-1e-300), "-1e-300");
  EXPECT_EQ(readable_number(1.0 / 3), "0.333333333333333");
}

// A value a flag or a TOML file gives quotes its bytes escaped.
TEST(ConfigMessages, BadValuesAreQuotedPrintably) {
  RunConfig cfg;
  const std::string integrator =
      input_error_of([&] { set_param_from_text(cfg, *find_run_param("integrator"), "\x1b[2Jrk4", "--integrator"); });
  EXPECT_NE(integrator.find("unknown value '\\x1b[2Jrk4'"), std::string::npos) << integrator;
  const std::string n = input_error_of([&] { set_param_from_text(cfg, *find_run_param("n"), "1\x07", "-n"); });
  EXPECT_NE(n.find("got '1\\x07'"), std::string::npos) << n;
  const std::string dir = temp_dir("quoted_toml");
  std::ofstream(dir + "/value.toml") << "[integrator]\nintegrator = \"\\u0007\\u001b[31mred\"\n";
  const std::string value = input_error_of([&] { apply_toml_file(cfg, dir + "/value.toml"); });
  EXPECT_NE(value.find("unknown value '\\x07\\x1b[31mred'"), std::string::npos) << value;
  std::ofstream(dir + "/key.toml") << "[model]\n\"\\u0001x\" = 1\n";
  const std::string key = input_error_of([&] { apply_toml_file(cfg, dir + "/key.toml"); });
  EXPECT_NE(key.find("unknown key '\\x01x'"), std::string::npos) << key;
}

// The clock must move: a start time at which a step of dt rounds away (t + dt == t) is refused
// (it ran, every step at one time), and so is a last step past the largest float64.
TEST(ConfigSections, StartTimeMustLetTheStepAdvance) {
  RunConfig cfg;
  cfg.start_time = 1.7e308;
  const std::string huge = input_error_of([&] { validate(cfg); });
  EXPECT_NE(huge.find("--start-time: 1.7e+308 + --dt 0.01 rounds back to 1.7e+308"), std::string::npos) << huge;
  cfg.start_time = 1e17;
  EXPECT_NE(input_error_of([&] { validate(cfg); }).find("--start-time"), std::string::npos);
  cfg.start_time = 1e12;  // t + dt still moves
  EXPECT_NO_THROW(validate(cfg));
  cfg.start_time = 1e308;
  cfg.dt = 1e307;
  cfg.steps = 100;
  EXPECT_NE(input_error_of([&] { validate(cfg); }).find("past the largest float64 time"), std::string::npos);
}

}  // namespace
}  // namespace nbody::test
