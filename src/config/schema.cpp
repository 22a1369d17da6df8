// The schema's mechanics: parsing and checking values, applicability, the flat text form kept in
// checkpoints. The tables themselves come from the subsystems (run_sections(), sections.cpp).
#include "config/schema.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/strings.hpp"
#include "nbody/config.hpp"
#include "nbody/error.hpp"

namespace nbody {

std::string format_number(double v) {
  char buf[32];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

namespace {

[[noreturn]] void bad_value(std::string_view source, const std::string& what) {
  throw_input_error(std::string(source) + ": " + what);
}

void check_range(const ParamSpec& spec, double v, std::string_view text, std::string_view source) {
  const bool below = spec.min_exclusive ? !(v > spec.min) : v < spec.min;
  if (below || v > spec.max) {
    std::string range;
    if (spec.max >= (spec.kind == ParamKind::integer ? kIntMax : kRealMax)) {
      range = std::string("must be ") + (spec.min_exclusive ? "> " : ">= ") + format_number(spec.min);
    } else {
      range = std::string("must be in ") + (spec.min_exclusive ? "(" : "[") + format_number(spec.min) + ", " +
              format_number(spec.max) + "]";
    }
    bad_value(source, range + " (got " + printable(text) + ")");
  }
}

std::vector<ParamSpec> flatten(bool aliases) {
  std::vector<ParamSpec> all;
  for (const auto& section : run_sections()) {
    for (auto spec : section.params) {
      if (spec.is_alias() != aliases) continue;
      spec.section = section.name;
      all.push_back(std::move(spec));
    }
  }
  return all;
}

const std::vector<ParamSpec>& run_aliases() {
  static const std::vector<ParamSpec> table = flatten(true);
  return table;
}

std::string escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char c = s[++i];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string ParamSpec::flag() const {
  std::string f = "--" + std::string(key);
  for (auto& c : f) {
    if (c == '_') c = '-';
  }
  return f;
}

const std::vector<ParamSpec>& run_params() {
  static const std::vector<ParamSpec> table = flatten(false);
  return table;
}

const ParamSpec* find_run_param(std::string_view key) {
  for (const auto* table : {&run_params(), &run_aliases()}) {
    for (const auto& p : *table) {
      if (p.key == key) return &p;
    }
  }
  return nullptr;
}

void set_param_integer(RunConfig& cfg, const ParamSpec& spec, std::int64_t value, std::string_view source) {
  if (spec.kind == ParamKind::real) {
    set_param_real(cfg, spec, double(value), source);
    return;
  }
  if (spec.kind != ParamKind::integer) bad_value(source, "expected text, got a number");
  check_range(spec, double(value), std::to_string(value), source);
  cfg.*std::get<std::int64_t RunConfig::*>(spec.field) = value;
}

void set_param_real(RunConfig& cfg, const ParamSpec& spec, double value, std::string_view source) {
  if (spec.kind != ParamKind::real) {
    bad_value(source, spec.kind == ParamKind::integer ? "expected a whole number, got " + format_number(value)
                                                      : "expected text, got a number");
  }
  if (!std::isfinite(value)) bad_value(source, "must be a finite number (got " + format_number(value) + ")");
  check_range(spec, value, format_number(value), source);
  cfg.*std::get<double RunConfig::*>(spec.field) = value;
}

void set_param_from_text(RunConfig& cfg, const ParamSpec& spec, std::string_view text, std::string_view source) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  switch (spec.kind) {
    case ParamKind::integer: {
      std::int64_t v = 0;
      const auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec == std::errc::result_out_of_range) bad_value(source, "number out of range (got " + printable(text) + ")");
      if (ec != std::errc() || ptr != last || text.empty()) {
        bad_value(source, "expected a whole number, got " + quoted_text(text));
      }
      set_param_integer(cfg, spec, v, source);
      return;
    }
    case ParamKind::real: {
      double v = 0;
      const auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec == std::errc::result_out_of_range) bad_value(source, "number out of range (got " + printable(text) + ")");
      if (ec != std::errc() || ptr != last || text.empty()) {
        bad_value(source, "expected a number, got " + quoted_text(text));
      }
      if (!std::isfinite(v)) bad_value(source, "must be a finite number (got " + printable(text) + ")");
      set_param_real(cfg, spec, v, source);
      return;
    }
    case ParamKind::text: {
      const auto& prefix = spec.choice_prefix;
      if (!prefix.empty() && text.substr(0, prefix.size()) == prefix) {
        if (text.size() == prefix.size()) bad_value(source, quoted_text(text) + " needs a path after it");
      } else if (spec.choices != nullptr) {
        auto allowed = spec.choices();
        bool ok = false;
        for (const auto& c : allowed) ok = ok || c == text;
        if (!prefix.empty()) allowed.push_back(std::string(prefix) + "PATH");
        if (!ok) bad_value(source, "unknown value " + quoted_text(text) + " (choose from " + join(allowed) + ")");
      }
      if (spec.is_alias()) {
        spec.assign(cfg, text);
      } else {
        cfg.*std::get<std::string RunConfig::*>(spec.field) = std::string(text);
      }
      return;
    }
  }
}

std::string param_value_text(const RunConfig& cfg, const ParamSpec& spec) {
  if (spec.is_alias()) return spec.value_of(cfg);
  return std::visit(
      [&](auto member) -> std::string {
        const auto& v = cfg.*member;
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>) {
          return v;
        } else if constexpr (std::is_same_v<V, double>) {
          return format_number(v);
        } else {
          return std::to_string(v);
        }
      },
      spec.field);
}

void validate(const RunConfig& cfg) {
  // Every value through the same checks as a flag or a TOML key, so a configuration built in
  // code (tests, the Python API) is held to the same rules.
  RunConfig scratch;
  for (const auto& spec : run_params()) {
    set_param_from_text(scratch, spec, param_value_text(cfg, spec), spec.key);
  }
  for (const auto& section : run_sections()) {
    if (section.check != nullptr) section.check(cfg);
  }
}

void check_given(const RunConfig& cfg, const std::vector<GivenParam>& given) {
  static const RunConfig defaults{};
  for (const auto& g : given) {
    const ParamSpec& spec = *g.spec;
    if (spec.is_alias()) {
      // The alias's value against each parameter it sets that was given too.
      RunConfig implied = cfg;
      spec.assign(implied, g.text);
      for (const auto& other : given) {
        const ParamSpec& o = *other.spec;
        if (o.is_alias()) continue;
        for (const auto key : spec.writes) {
          if (o.key != key || param_value_text(implied, o) == param_value_text(cfg, o)) continue;
          throw_input_error(g.source + ": " + printable(g.text) + " means " + std::string(o.key) + " " +
                            param_value_text(implied, o) + ", but " + other.source + " gives " + printable(other.text) +
                            "; give one or the other");
        }
      }
      continue;
    }
    if (spec.applies_to(cfg)) continue;
    if (g.silent_at_default && param_value_text(cfg, spec) == param_value_text(defaults, spec)) continue;
    const auto& rule = spec.applicability;
    throw_input_error(g.source + ": applies to " + std::string(rule.only) + " only (the run uses " +
                      rule.in_use(cfg) + ")");
  }
}

std::string config_to_lines(const RunConfig& cfg) {
  std::string out;
  for (const auto& spec : run_params()) {
    out += std::string(spec.key) + "\t" + escape(param_value_text(cfg, spec)) + "\n";
  }
  return out;
}

RunConfig config_from_lines(std::string_view text, const std::string& source) {
  RunConfig cfg;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = text.find('\n', at);
    const auto line = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    at = end == std::string_view::npos ? text.size() : end + 1;
    const auto tab = line.find('\t');
    if (tab == std::string_view::npos) throw_input_error(source + ": malformed configuration section");
    const std::string key(line.substr(0, tab));
    const ParamSpec* spec = find_run_param(key);
    if (spec == nullptr) throw_input_error(source + ": unknown parameter " + quoted_text(key) + " in the stored configuration");
    set_param_from_text(cfg, *spec, unescape(line.substr(tab + 1)), source + ": " + key);
  }
  return cfg;
}

}  // namespace nbody
