#include "cli/param_options.hpp"

#include <algorithm>

#include "config/schema.hpp"
#include "nbody/error.hpp"

namespace nbody::cli {
namespace {

bool names(const std::vector<std::string_view>& keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Whether a flag for `flag` overrides what the file gave in `g` (the same parameter, or one an
// alias sets): flags win over the file, so the two are not compared.
bool overrides(const ParamSpec& flag, const GivenParam& g) {
  return flag.key == g.spec->key || names(flag.writes, g.spec->key) || names(g.spec->writes, flag.key);
}

}  // namespace

void ParamOptions::add_to(CLI::App& cmd, const RunConfig& defaults, const std::vector<std::string>& keys,
                          bool with_config) {
  if (with_config) {
    config_ = cmd.add_option("--config", config_path_, "TOML file of parameters (flags given here override it)");
  }
  for (const auto& section : run_sections()) {
    for (const auto& spec : section.params) {
      const std::string key(spec.key);
      if (!keys.empty() && std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
      std::string names = spec.flag();
      if (!spec.short_flag.empty()) names = std::string(spec.short_flag) + "," + names;
      std::string help(spec.help);
      if (!spec.unit.empty()) help += " [" + std::string(spec.unit) + "]";
      if (spec.choices != nullptr) {
        std::string list;
        for (const auto& c : spec.choices()) list += (list.empty() ? "" : "|") + c;
        if (!spec.choice_prefix.empty()) list += "|" + std::string(spec.choice_prefix) + "PATH";
        help += " {" + list + "}";
      }
      if (spec.applicability.applies != nullptr) help += " (" + std::string(spec.applicability.only) + " only)";
      const std::string def = spec.default_text.empty() ? param_value_text(defaults, spec) : std::string(spec.default_text);
      help += " (default: " + (def.empty() ? std::string("none") : def) + ")";
      // Values are kept as text and checked by the schema, so a bad value gets the schema's
      // message (which names the flag) rather than CLI11's.
      options_[key] = cmd.add_option(names, raw_[key], help)
                          ->type_name(spec.kind == ParamKind::text      ? "TEXT"
                                      : spec.kind == ParamKind::integer ? "INT"
                                                                        : "REAL")
                          ->group(std::string(section.title));
    }
  }
}

RunConfig ParamOptions::resolve(RunConfig cfg) const {
  std::vector<GivenParam> given;
  if (config_ != nullptr && config_->count() > 0 && config_path_.empty()) {
    throw_input_error("--config: the path is empty");
  }
  // The file's keys that flags replace are left out: the flags' values, merged with the rest of
  // the file, are what the run checks.
  if (!config_path_.empty()) {
    apply_toml_file(cfg, config_path_, &given, [&](const ParamSpec& spec) { return flag_replaces(spec); });
  }
  // Aliases first, so that a parameter given beside its alias is what the run gets and
  // check_given can name the two.
  for (const bool aliases : {true, false}) {
    for (const auto& section : run_sections()) {
      for (const auto& spec : section.params) {
        if (spec.is_alias() != aliases) continue;
        const auto it = options_.find(std::string(spec.key));
        if (it == options_.end() || it->second->count() == 0) continue;
        const std::string& text = raw_.at(std::string(spec.key));
        set_param_from_text(cfg, spec, text, spec.flag());
        std::erase_if(given, [&](const GivenParam& g) { return !g.source.starts_with("--") && overrides(spec, g); });
        given.push_back({find_run_param(spec.key), spec.flag(), text, false});
      }
    }
  }
  check_given(cfg, given);
  given_keys_.clear();
  for (const auto& g : given) {
    given_keys_.emplace_back(g.spec->key);
    for (const auto key : g.spec->writes) given_keys_.emplace_back(key);
  }
  return cfg;
}

bool ParamOptions::flag_replaces(const ParamSpec& spec) const {
  if (!spec.is_alias()) {
    if (given(std::string(spec.key))) return true;
    for (const auto* alias : given_aliases()) {
      if (names(alias->writes, spec.key)) return true;
    }
    return false;
  }
  // An alias in the file: replaced when its own flag is given, or every parameter it sets is.
  if (given(std::string(spec.key))) return true;
  for (const auto key : spec.writes) {
    const ParamSpec* written = find_run_param(key);
    if (written == nullptr || !flag_replaces(*written)) return false;
  }
  return true;
}

std::vector<const ParamSpec*> ParamOptions::given_aliases() const {
  std::vector<const ParamSpec*> out;
  for (const auto& section : run_sections()) {
    for (const auto& spec : section.params) {
      if (spec.is_alias() && given(std::string(spec.key))) out.push_back(&spec);
    }
  }
  return out;
}

bool ParamOptions::given(const std::string& key) const {
  const auto it = options_.find(key);
  return it != options_.end() && it->second->count() > 0;
}

std::string ParamOptions::given_text(const std::string& key) const {
  return given(key) ? raw_.at(key) : std::string();
}

}  // namespace nbody::cli
