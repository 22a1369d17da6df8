#pragma once
// The value of a `--set table.key=value` override of a TOML deck (`nbody pic run`, `nbody
// ensemble`): read as TOML, a bare word as a string.
#include <toml++/toml.h>

#include <string>

#include "nbody/error.hpp"

namespace nbody {

// A table whose key "v" holds the value; an input error "<what>: cannot read the value" when the
// text is neither a TOML value nor a bare word.
inline toml::table read_set_value(const std::string& value, const std::string& what) {
  try {
    return toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    try {
      return toml::parse("v = \"" + value + "\"");  // a bare word is a string
    } catch (const toml::parse_error&) {
      throw_input_error(what + ": cannot read the value");
    }
  }
}

}  // namespace nbody
