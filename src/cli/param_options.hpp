#pragma once
// Binds the run-parameter schema to CLI11 options: one option per parameter, named and
// documented from the schema, values validated by the schema. --config FILE is read first and
// the flags given on the command line override it.
#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

#include "nbody/config.hpp"

namespace nbody::cli {

class ParamOptions {
 public:
  // Adds an option for each parameter key in `keys` (all parameters when empty), and
  // --config when with_config is true.
  void add_to(CLI::App& cmd, const RunConfig& defaults, const std::vector<std::string>& keys = {},
              bool with_config = true);
  // `base`, then the TOML file, then the flags that were given. An input error for an empty
  // --config path.
  [[nodiscard]] RunConfig resolve(RunConfig base) const;
  // Whether the flag of parameter `key` was given on the command line.
  [[nodiscard]] bool given(const std::string& key) const;
  // Its text as given (empty when it was not).
  [[nodiscard]] std::string given_text(const std::string& key) const;
  // The keys the last resolve() was given (flags and the TOML file; an alias's keys included).
  [[nodiscard]] const std::vector<std::string>& given_keys() const { return given_keys_; }

 private:
  // Whether a flag given here replaces what a --config file gives for `spec` (the same
  // parameter, or one an alias flag sets; an alias in the file when all it sets is replaced).
  [[nodiscard]] bool flag_replaces(const ParamSpec& spec) const;
  [[nodiscard]] std::vector<const ParamSpec*> given_aliases() const;
  std::map<std::string, std::string> raw_;
  std::map<std::string, CLI::Option*> options_;
  std::string config_path_;
  CLI::Option* config_ = nullptr;
  mutable std::vector<std::string> given_keys_;
};

}  // namespace nbody::cli
