// The author and date of openPMD files (pic/output/openpmd.hpp), with or without HDF5.
#include <cctype>
#include <cstdlib>
#include <ctime>

#include "nbody/error.hpp"
#include "pic/output/openpmd.hpp"

namespace nbody::pic {

bool is_openpmd_date(const std::string& date) {
  // YYYY-MM-DD HH:mm:ss +hhmm (or -hhmm): 'd' a digit, anything else itself.
  const std::string form = "dddd-dd-dd dd:dd:dd sdddd";
  if (date.size() != form.size()) return false;
  for (std::size_t k = 0; k < form.size(); ++k) {
    const unsigned char c = static_cast<unsigned char>(date[k]);
    const bool ok = form[k] == 'd' ? std::isdigit(c) != 0 : form[k] == 's' ? (c == '+' || c == '-') : c == form[k];
    if (!ok) return false;
  }
  return true;
}

namespace {

std::string environment(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

OpenPmdOrigin openpmd_origin_from_environment() {
  OpenPmdOrigin o;
  o.author = environment("NBODY_AUTHOR");
  const std::string epoch = environment("SOURCE_DATE_EPOCH");
  if (epoch.empty()) return o;
  bool digits = epoch.size() <= 18;  // (below 10^18 seconds: no overflow)
  for (char c : epoch) digits = digits && std::isdigit(static_cast<unsigned char>(c)) != 0;
  if (!digits) throw_input_error("SOURCE_DATE_EPOCH '" + epoch + "': not a whole number of seconds since 1970");
  const std::time_t t = static_cast<std::time_t>(std::strtoll(epoch.c_str(), nullptr, 10));
  std::tm utc{};
  char buf[64];
  if (gmtime_r(&t, &utc) == nullptr || std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S +0000", &utc) == 0 ||
      !is_openpmd_date(buf))
    throw_input_error("SOURCE_DATE_EPOCH '" + epoch + "': not a date openPMD can write");
  o.date = buf;
  return o;
}

}  // namespace nbody::pic
