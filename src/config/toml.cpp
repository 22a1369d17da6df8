// The configuration as TOML: reading [section] tables (and the older flat keys), writing
// config.toml, and TOML strings for the other files written as TOML (model.toml). The only
// translation unit that includes toml++ (it is large).
#include <toml++/toml.h>

#include <set>
#include <sstream>
#include <string>

#include "config/schema.hpp"
#include "core/strings.hpp"
#include "nbody/config.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

const ParamSection* find_section(std::string_view name) {
  for (const auto& s : run_sections()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// The value of one key into cfg, checked by the schema.
void apply_node(RunConfig& cfg, const ParamSpec& spec, const toml::node& node, const std::string& source,
                std::string* text) {
  if (const auto* v = node.as_integer()) {
    set_param_integer(cfg, spec, v->get(), source);
    *text = std::to_string(v->get());
  } else if (const auto* f = node.as_floating_point()) {
    set_param_real(cfg, spec, f->get(), source);
    *text = format_number(f->get());
  } else if (const auto* s = node.as_string()) {
    if (spec.kind != ParamKind::text) {
      throw_input_error(source + ": expected a number, got the string " + quoted_text(s->get()));
    }
    set_param_from_text(cfg, spec, s->get(), source);
    *text = s->get();
  } else {
    std::ostringstream type;
    type << node.type();
    throw_input_error(source + ": expected a " + std::string(spec.kind == ParamKind::text ? "string" : "number") +
                      ", got a " + type.str());
  }
}

}  // namespace

void apply_toml_file(RunConfig& cfg, const std::filesystem::path& path, std::vector<GivenParam>* given) {
  apply_toml_file(cfg, path, given, nullptr);
}

void apply_toml_file(RunConfig& cfg, const std::filesystem::path& path, std::vector<GivenParam>* given,
                     const std::function<bool(const ParamSpec&)>& replaced) {
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw_input_error("config: cannot read '" + name + "': no such file");
  }
  toml::table table;
  try {
    table = toml::parse_file(name);
  } catch (const toml::parse_error& err) {
    const auto& where = err.source().begin;
    throw_input_error("config: " + name + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
                      ": malformed TOML: " + printable(err.description(), 200));
  }
  std::set<std::string_view> seen;  // a key given both flat and in its section is given twice
  const auto take = [&](const ParamSpec& spec, const toml::node& node, const std::string& source) {
    if (!seen.insert(spec.key).second) throw_input_error(source + ": given twice (at the top level and in [" +
                                                         std::string(spec.section) + "])");
    if (replaced && replaced(spec)) return;
    GivenParam g{&spec, source, "", /*silent_at_default=*/true};
    apply_node(cfg, spec, node, source, &g.text);
    given->push_back(std::move(g));
  };
  // Flat keys first, then the sections: the file's order does not matter, and a key is given once.
  for (const auto& [key, node] : table) {
    if (node.is_table()) continue;
    const std::string k(key.str());
    const ParamSpec* spec = find_run_param(k);
    if (spec == nullptr) throw_input_error("config: " + name + ": unknown key " + quoted_text(k));
    take(*spec, node, name + ": " + k);
  }
  for (const auto& [key, node] : table) {
    if (!node.is_table()) continue;
    const std::string s(key.str());
    const ParamSection* section = find_section(s);
    if (section == nullptr) {
      std::string known;
      for (const auto& sec : run_sections()) known += (known.empty() ? "[" : ", [") + std::string(sec.name) + "]";
      throw_input_error("config: " + name + ": unknown section [" + printable(s) + "] (the sections are " + known + ")");
    }
    for (const auto& [inner, value] : *node.as_table()) {
      const std::string k(inner.str());
      const std::string source = name + ": [" + s + "] " + printable(k);
      const ParamSpec* spec = find_run_param(k);
      if (spec == nullptr) throw_input_error("config: " + name + ": [" + s + "] unknown key " + quoted_text(k));
      if (spec->section != section->name) {
        throw_input_error("config: " + source + ": belongs in [" + std::string(spec->section) + "], not [" + s + "]");
      }
      take(*spec, value, source);
    }
  }
}

void apply_toml_file(RunConfig& cfg, const std::filesystem::path& path) {
  std::vector<GivenParam> given;
  apply_toml_file(cfg, path, &given);
  check_given(cfg, given);
}

std::string toml_string(std::string_view s) {
  std::ostringstream out;
  // No format flags: always a basic string on one line, every control character escaped.
  out << toml::toml_formatter{toml::value<std::string>(std::string(s)), toml::format_flags::none};
  return out.str();
}

std::string toml_real(double v) {
  std::string s = format_number(v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep it a TOML float
  return s;
}

std::string to_toml(const RunConfig& cfg) {
  std::ostringstream out;
  bool first = true;
  for (const auto& section : run_sections()) {
    out << (first ? "" : "\n") << "[" << section.name << "]\n";
    first = false;
    for (const auto& spec : section.params) {
      if (spec.is_alias()) continue;
      out << "# " << spec.help;
      if (!spec.unit.empty()) out << " [" << spec.unit << "]";
      out << "\n" << spec.key << " = ";
      const std::string v = param_value_text(cfg, spec);
      if (spec.kind == ParamKind::text) {
        out << toml_string(v);
      } else if (spec.kind == ParamKind::real) {
        out << toml_real(cfg.*std::get<double RunConfig::*>(spec.field));
      } else {
        out << v;
      }
      out << "\n";
    }
    for (const auto& spec : section.params) {
      // An alias is read, never written; its spelling of the values above, for a reader who
      // knows only that one.
      if (!spec.is_alias()) continue;
      // Only where the older key can say it (it has no spelling of --gravity tree).
      RunConfig implied = cfg;
      spec.assign(implied, spec.value_of(cfg));
      bool same = true;
      for (const auto k : spec.writes) {
        const ParamSpec* written = find_run_param(k);
        if (written && param_value_text(implied, *written) != param_value_text(cfg, *written)) same = false;
      }
      if (!same) continue;
      std::string keys;
      for (const auto k : spec.writes) keys += (keys.empty() ? "" : " and ") + std::string(k);
      out << "# " << keys << " in the older single key: " << spec.key << " = " << toml_string(spec.value_of(cfg))
          << "\n";
    }
  }
  return out.str();
}

}  // namespace nbody
