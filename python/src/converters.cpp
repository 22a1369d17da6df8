// Python values to the library's and back: keyword arguments through the schema, particles to
// and from numpy arrays, diagnostics and run results as dicts.
#include "converters.hpp"

#include <pybind11/stl.h>

#include "io/components.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"

namespace nbody::py {

namespace {

bool is_int(const pb::handle& v) {
  return PyLong_Check(v.ptr()) || (!PyFloat_Check(v.ptr()) && PyIndex_Check(v.ptr()));
}

// One keyword argument through the schema; `source` is the keyword.
void set_from_python(RunConfig& cfg, const ParamSpec& spec, const pb::handle& value, const std::string& source,
                     std::string* text) {
  if (PyBool_Check(value.ptr())) {
    throw_input_error(source + ": expected " +
                      std::string(spec.kind == ParamKind::text ? "text" : "a number") + ", got a bool");
  }
  if (value.is_none()) throw_input_error(source + ": expected a value, got None");
  if (is_int(value)) {
    const std::int64_t v = pb::int_(pb::reinterpret_borrow<pb::object>(value)).cast<std::int64_t>();
    *text = std::to_string(v);
    set_param_integer(cfg, spec, v, source);
    return;
  }
  if (PyFloat_Check(value.ptr()) || (pb::hasattr(value, "__float__") && !pb::isinstance<pb::str>(value))) {
    const double v = pb::float_(pb::reinterpret_borrow<pb::object>(value)).cast<double>();
    *text = pb::str(pb::float_(v)).cast<std::string>();
    set_param_real(cfg, spec, v, source);
    return;
  }
  pb::object s = pb::reinterpret_borrow<pb::object>(value);
  if (!pb::isinstance<pb::str>(s)) {
    if (!pb::hasattr(s, "__fspath__")) {
      throw_input_error(source + ": expected " + std::string(spec.kind == ParamKind::text ? "text" : "a number") +
                        ", got " + pb::str(pb::type::of(s).attr("__name__")).cast<std::string>());
    }
    s = pb::module_::import("os").attr("fspath")(s);
  }
  *text = s.cast<std::string>();
  set_param_from_text(cfg, spec, *text, source);
}

}  // namespace

RunConfig config_from_kwargs(const pb::dict& kwargs, RunConfig cfg, std::vector<std::string>* given_keys) {
  std::vector<GivenParam> given;
  // Aliases first (backend), so that a parameter given beside its alias is the one named.
  for (const bool aliases : {true, false}) {
    for (const auto& [k, v] : kwargs) {
      const std::string key = pb::str(k).cast<std::string>();
      const ParamSpec* spec = find_run_param(key);
      if (spec == nullptr) {
        throw_input_error(key + ": unknown parameter (nbody.parameters() lists them; flags' dashes are written _)");
      }
      if (spec->is_alias() != aliases) continue;
      std::string text;
      set_from_python(cfg, *spec, v, key, &text);
      given.push_back({spec, key, text, false});
    }
  }
  check_given(cfg, given);
  if (given_keys != nullptr) {
    for (const auto& g : given) {
      given_keys->emplace_back(g.spec->key);
      for (const auto key : g.spec->writes) given_keys->emplace_back(key);
    }
  }
  return cfg;
}

pb::dict config_to_dict(const RunConfig& cfg) {
  pb::dict d;
  for (const auto& spec : run_params()) {
    const std::string key(spec.key);
    std::visit([&](auto member) { d[key.c_str()] = cfg.*member; }, spec.field);
  }
  return d;
}

namespace {

template <class V>
pb::array_t<V> to_array(const std::vector<V>& v) {
  pb::array_t<V> a(static_cast<pb::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

}  // namespace

pb::dict particles_to_dict(const Particles<double>& p) {
  pb::dict d;
  d["x"] = to_array(p.x);
  d["y"] = to_array(p.y);
  d["z"] = to_array(p.z);
  d["vx"] = to_array(p.vx);
  d["vy"] = to_array(p.vy);
  d["vz"] = to_array(p.vz);
  d["m"] = to_array(p.m);
  d["id"] = to_array(p.id);
  std::vector<std::uint8_t> component(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) component[i] = p.component_of(i);
  d["component"] = to_array(component);
  pb::list names;
  for (const auto& name : p.component_names) names.append(pb::str(name));
  d["component_names"] = names;
  return d;
}

void components_from_dict(Particles<double>& p, const pb::dict& d, const std::string& what) {
  if (d.contains("component_names") && !d["component_names"].is_none()) {
    p.component_names.clear();
    for (const auto& name : d["component_names"]) p.component_names.push_back(pb::str(name).cast<std::string>());
    check_component_names(p.component_names, what, "component_names");
  }
  if (d.contains("component") && !d["component"].is_none()) {
    auto a = pb::array_t<std::uint8_t, pb::array::c_style | pb::array::forcecast>::ensure(d["component"]);
    if (!a || a.ndim() != 1 || static_cast<std::size_t>(a.size()) != p.size()) {
      throw_input_error(what + ": component must be " + std::to_string(p.size()) + " integers from 0 to 255");
    }
    p.component.assign(a.data(), a.data() + a.size());
  }
  check_component_tags(p, what, [](std::size_t i) { return "body " + std::to_string(i); });
}

Particles<double> particles_from_arrays(const pb::object& m, const pb::object& x, const pb::object& y,
                                        const pb::object& z, const pb::object& vx, const pb::object& vy,
                                        const pb::object& vz, const pb::object& id, const std::string& what) {
  using Arr = pb::array_t<double, pb::array::c_style | pb::array::forcecast>;
  const std::pair<const char*, const pb::object*> fields[] = {{"m", &m},   {"x", &x},   {"y", &y},  {"z", &z},
                                                              {"vx", &vx}, {"vy", &vy}, {"vz", &vz}};
  Particles<double> p;
  std::vector<double>* dst[] = {&p.m, &p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz};
  pb::ssize_t n = -1;
  for (int k = 0; k < 7; ++k) {
    Arr a;
    try {
      a = Arr::ensure(*fields[k].second);
    } catch (const pb::error_already_set&) {
      a = Arr();
    }
    if (!a) throw_input_error(what + ": " + fields[k].first + " is not an array of numbers");
    if (a.ndim() != 1) throw_input_error(what + ": " + fields[k].first + " must be one-dimensional");
    if (n >= 0 && a.size() != n) {
      throw_input_error(what + ": " + fields[k].first + " has " + std::to_string(a.size()) + " values, m has " +
                        std::to_string(n));
    }
    n = a.size();
    dst[k]->assign(a.data(), a.data() + a.size());
  }
  if (id.is_none()) {
    p.id.resize(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < p.id.size(); ++i) p.id[i] = i;
  } else {
    auto a = pb::array_t<std::uint64_t, pb::array::c_style | pb::array::forcecast>::ensure(id);
    if (!a || a.ndim() != 1 || a.size() != n) throw_input_error(what + ": id must be " + std::to_string(n) + " integers");
    p.id.assign(a.data(), a.data() + a.size());
  }
  if (n == 0) throw_input_error(what + ": no bodies");
  validate_particles(p, what, [](std::size_t i) { return "body " + std::to_string(i); });
  return p;
}

pb::dict diagnostics_to_dict(const Diagnostics& d, const Diagnostics& initial) {
  pb::dict out;
  out["step"] = d.step;
  out["time"] = d.time;
  out["kinetic"] = d.kinetic;
  out["potential"] = d.potential;
  out["total"] = d.total;
  out["momentum"] = pb::make_tuple(d.momentum[0], d.momentum[1], d.momentum[2]);
  out["angular_momentum"] = pb::make_tuple(d.angular[0], d.angular[1], d.angular[2]);
  out["com"] = pb::make_tuple(d.com[0], d.com[1], d.com[2]);
  out["virial_ratio"] = d.virial_ratio;
  out["energy_error"] = relative_energy_error(d, initial.total);
  out["momentum_drift"] = momentum_drift(d, initial);
  out["angular_momentum_drift"] = angular_momentum_drift(d, initial);
  return out;
}

pb::dict run_result_to_dict(const RunResult& r) {
  pb::dict d;
  d["first_step"] = r.first_step;
  d["last_step"] = r.last_step;
  d["time"] = r.time;
  d["stopped_by"] = r.stopped_by ? pb::object(pb::str(*r.stopped_by)) : pb::object(pb::none());
  d["initial"] = diagnostics_to_dict(r.initial, r.initial);
  d["final"] = r.final ? pb::object(diagnostics_to_dict(*r.final, r.initial)) : pb::object(pb::none());
  d["wall_seconds"] = r.wall_seconds;
  d["stepping_seconds"] = r.stepping_seconds;
  d["interactions"] = r.interactions;
  d["chunks"] = r.chunks;
  d["directory"] = r.directory ? pb::object(pb::str(r.directory->string())) : pb::object(pb::none());
  d["snapshots"] = r.snapshots;
  return d;
}

}  // namespace nbody::py
