#include "cli/param_options.hpp"

#include <algorithm>

namespace nbody::cli {

void ParamOptions::add_to(CLI::App& cmd, const RunConfig& defaults, const std::vector<std::string>& keys,
                          bool with_config) {
  if (with_config) {
    cmd.add_option("--config", config_path_, "TOML file of parameters (flags given here override it)");
  }
  for (const auto& spec : run_params()) {
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
    const std::string def = param_value_text(defaults, spec);
    help += " (default: " + (def.empty() ? std::string("none") : def) + ")";
    // Values are kept as text and checked by the schema, so a bad value gets the schema's
    // message (which names the flag) rather than CLI11's.
    options_[key] = cmd.add_option(names, raw_[key], help)->type_name(spec.kind == ParamKind::text ? "TEXT"
                                                                      : spec.kind == ParamKind::integer ? "INT"
                                                                                                        : "REAL");
  }
}

RunConfig ParamOptions::resolve(RunConfig cfg) const {
  if (!config_path_.empty()) apply_toml_file(cfg, config_path_);
  for (const auto& spec : run_params()) {
    const auto it = options_.find(std::string(spec.key));
    if (it == options_.end() || it->second->count() == 0) continue;
    set_param_from_text(cfg, spec, raw_.at(std::string(spec.key)), spec.flag());
  }
  return cfg;
}

}  // namespace nbody::cli
