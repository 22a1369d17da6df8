#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
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

// A time (or any measured number) for a person to read: the shortest of %.6g to %.15g that
// shows it to 15 significant digits, so the last bits of a sum of steps do not show (1.85, not
// 1.8500000000000001) and nothing beyond them is lost (1234.5678, not 1234.57).
inline std::string readable_number(double v) {
  char full[40];
  std::snprintf(full, sizeof full, "%.15g", v);
  const double target = std::strtod(full, nullptr);
  char buf[40];
  for (int digits = 6; digits < 15; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == target) return buf;
  }
  return full;
}

namespace strings_detail {

// The length of the valid UTF-8 sequence at s[at] of a printable character (U+00A0 and above;
// the C1 controls U+0080..U+009F are not), or 0.
inline std::size_t printable_utf8_length(std::string_view s, std::size_t at) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[at + k]); };
  const unsigned char b0 = byte(0);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    if (b0 == 0xC2) lo = 0xA0;  // not a C1 control
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;  // not overlong
    if (b0 == 0xED) hi = 0x9F;  // not a surrogate
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // not above U+10FFFF
  } else {
    return 0;
  }
  if (at + n > s.size() || byte(1) < lo || byte(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  }
  return n;
}

// s[at...] onto out, printable: returns the bytes taken (one, or a whole UTF-8 character).
inline std::size_t append_printable(std::string& out, std::string_view s, std::size_t at, bool escape_backslash) {
  const auto c = static_cast<unsigned char>(s[at]);
  if (c >= 0x20 && c < 0x7F) {
    if (c == '\\' && escape_backslash) out += '\\';
    out += static_cast<char>(c);
    return 1;
  }
  if (const std::size_t n = printable_utf8_length(s, at); n > 0) {
    out.append(s.substr(at, n));
    return n;
  }
  static const char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 15];
  return 1;
}

}  // namespace strings_detail

namespace strings_detail {

// s escaped, up to max_bytes of it; whether some was left out.
inline std::string printable_head(std::string_view s, std::size_t max_bytes, bool* cut) {
  std::string out;
  std::size_t at = 0;
  while (at < s.size() && at < max_bytes) at += append_printable(out, s, at, true);
  *cut = at < s.size();
  return out;
}

}  // namespace strings_detail

// Text from outside the program (a file's bytes, a value given on the command line) as a
// message may show it: printable ASCII and well-formed UTF-8 as they are, a backslash doubled,
// every other byte (control characters, DEL, bytes that are not UTF-8) as \xNN; more than
// max_bytes of it cut there, with "..." and the whole length after it. Never more than one line.
inline std::string printable(std::string_view s, std::size_t max_bytes = 80) {
  bool cut = false;
  std::string out = strings_detail::printable_head(s, max_bytes, &cut);
  if (cut) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

// printable(s) in single quotes, the form error lines quote their input in: 'text', or
// 'first bytes'... (N bytes).
inline std::string quoted_text(std::string_view s, std::size_t max_bytes = 80) {
  bool cut = false;
  std::string out(1, '\'');
  out += strings_detail::printable_head(s, max_bytes, &cut);
  out += '\'';
  if (cut) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

// A whole message made one printable line, whatever a part of it quoted without quoted_text():
// control bytes and bytes that are not UTF-8 as \xNN (backslashes as they are: quoted parts
// already escaped theirs). Nothing is cut.
inline std::string printable_line(std::string_view s) {
  std::string out;
  for (std::size_t at = 0; at < s.size();) at += strings_detail::append_printable(out, s, at, false);
  return out;
}

}  // namespace nbody
