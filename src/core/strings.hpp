#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

namespace nbody {

// "a, b, c"
inline std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// printf into a string (a line of up to 1023 characters).
[[gnu::format(printf, 1, 2)]] inline std::string format_line(const char* fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

}  // namespace nbody
