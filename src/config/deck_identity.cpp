// Deck identities compared (config/deck_identity.hpp).
#include "config/deck_identity.hpp"

#include <toml++/toml.h>

#include <sstream>

#include "nbody/error.hpp"

namespace nbody {
namespace {

std::string toml_text_of(const toml::node& n) {
  std::ostringstream o;
  n.visit([&](const auto& v) {
    if constexpr (toml::is_table<decltype(v)>) o << toml::toml_formatter(v);
    else if constexpr (toml::is_array<decltype(v)>) o << toml::toml_formatter(v);
    else o << v;
  });
  return o.str();
}

}  // namespace

std::string first_deck_difference(const std::string& identity_a, const std::string& identity_b) {
  const toml::table a = toml::parse(identity_a), b = toml::parse(identity_b);
  std::string first;
  auto compare = [&](const toml::table& x, const toml::table& y) {
    for (const auto& [table, node] : x) {
      const std::string tname(table.str());
      const toml::table* tx = node.as_table();
      const toml::table* ty = y[tname].as_table();
      if (!tx) {
        if (!y.contains(tname) || toml_text_of(node) != toml_text_of(*y.get(tname))) return tname;
        continue;
      }
      for (const auto& [key, value] : *tx) {
        const std::string k(key.str());
        if (!ty || !ty->contains(k) || toml_text_of(value) != toml_text_of(*ty->get(k))) return tname + "." + k;
      }
    }
    return std::string();
  };
  first = compare(a, b);
  if (first.empty()) first = compare(b, a);
  return first;
}

void naming_the_deck(const std::string& kind, const std::string& file, const std::function<void()>& read) {
  try {
    read();
  } catch (const Error& e) {
    const std::string what = e.what(), prefix = kind + " config: ";
    if (e.kind() != ErrorKind::input || what.rfind(prefix, 0) != 0) throw;
    throw_input_error(kind + " config '" + file + "': " + what.substr(prefix.size()));
  }
}

}  // namespace nbody
