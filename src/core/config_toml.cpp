// The only translation unit that includes toml++ (it is large).
#include <toml++/toml.h>

#include <sstream>
#include <string>

#include "nbody/config.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

}  // namespace

void apply_toml_file(RunConfig& cfg, const std::filesystem::path& path) {
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
                      ": malformed TOML: " + std::string(err.description()));
  }
  for (const auto& [key, node] : table) {
    const std::string k(key.str());
    const ParamSpec* spec = find_run_param(k);
    const std::string source = name + ": " + k;
    if (spec == nullptr) throw_input_error("config: " + name + ": unknown key '" + k + "'");
    if (const auto* v = node.as_integer()) {
      set_param_integer(cfg, *spec, v->get(), source);
    } else if (const auto* f = node.as_floating_point()) {
      set_param_real(cfg, *spec, f->get(), source);
    } else if (const auto* s = node.as_string()) {
      if (spec->kind != ParamKind::text) {
        throw_input_error(source + ": expected a number, got the string \"" + s->get() + "\"");
      }
      set_param_from_text(cfg, *spec, s->get(), source);
    } else {
      std::ostringstream type;
      type << node.type();
      throw_input_error(source + ": expected a " + std::string(spec->kind == ParamKind::text ? "string" : "number") +
                        ", got a " + type.str());
    }
  }
}

std::string to_toml(const RunConfig& cfg) {
  std::ostringstream out;
  for (const auto& spec : run_params()) {
    out << "# " << spec.help;
    if (!spec.unit.empty()) out << " [" << spec.unit << "]";
    out << "\n" << spec.key << " = ";
    const std::string v = param_value_text(cfg, spec);
    if (spec.kind == ParamKind::text) {
      out << quote(v);
    } else if (spec.kind == ParamKind::real && v.find_first_of(".eE") == std::string::npos) {
      out << v << ".0";  // keep it a TOML float
    } else {
      out << v;
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace nbody
